"""Pasted human output (a ticket, a forum post, a mail) turned into the raw samples one
zdash tick holds: a third source beside the live host and a recording."""
