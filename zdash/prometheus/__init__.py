"""Prometheus exposition of zdash's view: `metrics` turns a Snapshot and its findings into
metric families (pure), `exporter` keeps the latest of them fresh from a tick source and serves
or writes them. Imported only by `zdash exporter` and `zdash check --prometheus`."""
