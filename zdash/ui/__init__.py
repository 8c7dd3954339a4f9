"""The Textual dashboard. The only package that imports Textual: the CLI imports it lazily
(zdash.commands.dashboard) so `zdash record` and `zdash check` run on hosts without it."""
