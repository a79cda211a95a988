"""The test suite, layered as the code is: engine, io, web, system; helpers in support."""
