"""Hardware at the table: GPIO buttons, the display, systemd notification. Imported lazily and injectable."""
