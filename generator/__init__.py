"""ishmem's code generator: spec/*.yaml -> generated/ (headers, stubs, docs, tests).

Modules, in pipeline order (`python3 -m generator` runs them; the spec's format is spec/README.md):

  __main__.py         the command line: generate, compare with generated/ (--check), write what changed
  Load the spec
  loader.py           read spec/*.yaml and validate it against spec/schema.json (RawSpec, SpecError)
  checks.py           the registry of argument-check kinds: spec form, hard or soft, C++ code, doc sentence
  The model
  model.py            the dataclasses alone: type tables, families, entry points, test cases, chapters, Api
  build.py            the model from the validated spec, with the semantic rules the schema cannot state
  Expansion
  expand.py           a family -> its entry points (form x variant x team overload); the reference synopsis
  Per-target translation
  targets.py          the targets a body is written for (host, host bounds-only, CUDA device) and their names
  check_code.py       a family's checks as C++ statements and conditions for one target, from checks.py
  adapters.py         the generated tests' adapters: host cases, and GPU cases in kernels or on a stream
  c_bindings.py       the C11 view: _Generic selections for templates, argument-count macros for overloads
  openshmem.py        shmem.h: the OpenSHMEM 1.5 names of the families' routines and their generic forms
  openshmem_extra.py  shmem.h's routines that no family makes (spec/openshmem_extra.yaml)
  Emit
  emit.py             render templates/*.j2 with the model into {path under generated/: text}; doc helpers
"""
