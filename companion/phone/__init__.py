"""The players' phones: each seat's own page, the table's page and the report after the game.

Optional (`[phone] enabled = true`). The main loop builds an immutable `Snapshot` of what every page
shows after each change (`view`) and hands it to the server, which runs an asyncio event loop in a
thread of its own (`server`) and only ever reads the latest snapshot: no page can change the game,
and a slow phone can never hold up the main loop that feeds the watchdog. `pages` and `board` turn a
snapshot into HTML and SVG; `report` makes the post-game report, live and from a saved record.
"""
