"""A table without a table: simulated players (`table`), the synthetic camera and the real observer
watching them (`eyes`), and the loop that plays a whole game through the companion (`demo`), for
`companion demo`, the game benchmark and the end-to-end tests. `companion run` never imports it."""
