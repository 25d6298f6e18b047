"""Hardware at the table: GPIO buttons, the display. Everything imported lazily and injectable."""
