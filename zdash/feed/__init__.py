"""The headless core of the dashboard: feeds turn a source (the live host, a recording) into
Frames (snapshot, findings, history window). No Textual here; zdash.ui draws the Frames."""
