"""`zdash serve`: the dashboard in web browsers, through textual-serve (an optional extra:
pip install 'zdash[serve]'). The guard (who may connect) is plain aiohttp; the server starts one
zdash per browser and relays its screen over a websocket to xterm.js in the page."""
