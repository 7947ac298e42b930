"""ishmem's code generator: spec/*.yaml -> generated/ (headers, stubs, docs, tests)."""
