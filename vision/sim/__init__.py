"""The simulator: a table the camera can watch without a table.

The renderer (`synthetic`), the pieces' and board's art (`art`), what real tables do to a picture
(`perturbations`) and the camera that films it (`camera.SyntheticCamera`). For the demo, the tests
and the benchmarks only: nothing on the production path (`companion run` with a real camera)
imports this package.
"""
