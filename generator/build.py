"""The model from the validated spec documents (loader.py's RawSpec): type tables, constants,
chapters and families, then every family's entry points (expand.py), with the semantic rules the
schema cannot state (unknown names, duplicates, overloads C cannot tell apart). Errors are
collected and raised together as one SpecError."""
from __future__ import annotations

import re

from .expand import expand_family
from .loader import RawSpec, SpecError
from .model import (Api, Chapter, Check, EntryPoint, Family, Macro, MacroGroup, Param, Section, Typedef, TypeEntry,
                    TypeTable)
from .openshmem_extra import build_extra


def _families(raw: RawSpec, tables: dict[str, TypeTable], groups: dict[str, "MacroGroup"],
              errors: list[str]) -> list[Chapter]:
    chapters = []
    seen_names: dict[str, str] = {}
    for rel, doc in raw.family_files:
        ch = doc["chapter"]
        fams = []
        for f in doc["families"]:
            where = f"{rel}:{f.line}: family '{f['name']}'"
            table = None
            if "types" in f:
                table = tables.get(f["types"])
                if table is None:
                    errors.append(f"{where}: unknown type table '{f['types']}' (known: {', '.join(sorted(tables))})")
                elif "type_op" in f:
                    # Only the types of the table that support the operation (e.g. and/or/xor reductions).
                    kept = tuple(t for t in table.types if f["type_op"] in t.ops)
                    if not kept:
                        errors.append(f"{where}: no type of table '{table.name}' supports '{f['type_op']}'")
                    table = TypeTable(table.name, table.doc, kept)
            params = []
            names = [p["name"] for p in f["params"]] + (["team"] if f.get("team") else [])
            for p in f["params"]:
                checks = []
                for c in p.get("checks", []):
                    if isinstance(c, str):
                        checks.append(Check(c))
                    else:
                        ((kind, arg),) = c.items()
                        args = tuple(arg) if isinstance(arg, list) else (arg,)
                        for a in args if kind != "flags" else ():  # flags: a C expression of macros
                            if not re.fullmatch(r"\d+", a) and a not in names:
                                errors.append(f"{rel}:{p.line}: family '{f['name']}': check '{kind}' of '{p['name']}' names unknown parameter '{a}'")
                        checks.append(Check(kind, args))
                if "TYPE" in p["type"] and "types" not in f:
                    errors.append(f"{rel}:{p.line}: family '{f['name']}': parameter '{p['name']}' uses TYPE but the family has no type table")
                params.append(Param(p["name"], p["type"], p["doc"], tuple(checks), p.get("openshmem_type", "")))
            if len(set(names)) != len(names) or (f.get("team") and "team" in [p["name"] for p in f["params"]]):
                errors.append(f"{where}: duplicate parameter names")
            for flag in ("sized", "mem", "generic"):
                if f.get(flag) and table is None:
                    errors.append(f"{where}: '{flag}' needs a type table")
            if f.get("generic") and not any(p.type.endswith("TYPE*") for p in params):
                errors.append(f"{where}: 'generic' needs a TYPE* parameter (the template deduces T from pointers only)")
            fetch_out = f.get("fetch_out")
            if fetch_out and fetch_out not in names:
                errors.append(f"{where}: fetch_out names unknown parameter '{fetch_out}'")
            callable_ = f["callable"]
            fam = Family(
                name=f["name"], chapter=ch["name"], prefix=f.get("prefix", "ishmem"),
                root=f.get("root", f["name"]), suffix=f.get("suffix", ""),
                brief=f["brief"].strip(), description=" ".join(f["description"].split()),
                table=table, sized=f.get("sized", False), mem=f.get("mem", False),
                generic=f.get("generic", False), variants=tuple(f.get("variants", ["base"])),
                callable=tuple([callable_] if isinstance(callable_, str) else callable_),
                returns=f["returns"]["type"], returns_doc=f["returns"].get("doc", "None."),
                params=tuple(params), check_init=f.get("check_init", True), fetch_out=fetch_out,
                impl=f.get("impl", f["name"]), test=f["test"], file=rel, line=f.line,
                team=f.get("team", False), work_group_returns=f.get("work_group_returns", ""),
                cuda="device" in callable_ and f.get("cuda", ch.get("cuda", True)),
                symbol=f.get("symbol", f["name"]), on_stream=f.get("on_stream", False),
                openshmem=tuple(f.get("openshmem", ())), example=f.get("example", ""))
            if fam.name in seen_names:
                errors.append(f"{where}: duplicate family, first defined at {seen_names[fam.name]}")
            seen_names[fam.name] = f"{rel}:{f.line}"
            if fam.root != fam.name and fam.root + fam.suffix != fam.name:
                errors.append(f"{where}: root '{fam.root}' + suffix '{fam.suffix}' must spell the name")
            if "symbol" in f and table is not None:
                errors.append(f"{where}: 'symbol' names a routine without a type table (typed entry points "
                              f"take their names from root and suffix)")
            fams.append(fam)
        shown = []
        for g in ch.get("constants", []):
            if g in groups:
                shown.append(groups[g])
            else:
                errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': unknown constant group '{g}' "
                              f"(known: {', '.join(groups)})")
        shown_tables = []
        for tn in ch.get("type_tables", []):
            if tn in tables:
                shown_tables.append(tables[tn])
            else:
                errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': unknown type table '{tn}'")
        chapters.append(Chapter(ch["name"], ch["title"], ch["order"], " ".join(ch["intro"].split()), rel,
                                tuple(fams), tuple(shown), tuple(shown_tables),
                                _sections(rel, ch, fams, errors)))
    chapters.sort(key=lambda c: (c.order, c.name))
    return chapters


def _sections(rel: str, ch, fams: list[Family], errors: list[str]) -> tuple[Section, ...]:
    """The chapter's sections, in spec order; when it has any, each family is in exactly one."""
    by_name = {f.name: f for f in fams}
    sections, placed = [], []
    for s in ch.get("sections", []):
        unknown = [n for n in s["families"] if n not in by_name]
        if unknown:
            errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': section '{s['name']}' names unknown "
                          f"families {', '.join(unknown)}")
        placed += s["families"]
        sections.append(Section(s["name"], s["title"], " ".join(s.get("intro", "").split()),
                                tuple(by_name[n] for n in s["families"] if n in by_name)))
    if sections and sorted(placed) != sorted(by_name):
        errors.append(f"{rel}:{ch.line}: chapter '{ch['name']}': every family must be in exactly one section "
                      f"(missing: {', '.join(sorted(set(by_name) - set(placed))) or 'none'}; "
                      f"repeated: {', '.join(sorted({n for n in placed if placed.count(n) > 1})) or 'none'})")
    return tuple(sections)


def build_api(raw: RawSpec) -> Api:
    errors: list[str] = []
    tables = {}
    for name, t in raw.types["tables"].items():
        tables[name] = TypeTable(name, " ".join(t["doc"].split()),
                                 tuple(TypeEntry(e["type"], e["typename"], tuple(e.get("ops", ()))) for e in t["types"]))
        seen = set()
        for e in t["types"]:
            if e["typename"] in seen:
                errors.append(f"{raw.types.file}:{e.line}: table '{name}': duplicate TYPENAME '{e['typename']}'")
            seen.add(e["typename"])
    groups = tuple(MacroGroup(g["name"], g["title"], tuple(Macro(m["name"], m["value"], m["doc"]) for m in g["macros"]))
                   for g in raw.constants["groups"])
    typedefs = tuple(Typedef(t["name"], t["doc"], t["decl"].rstrip(), t.get("header", "ishmem"),
                             t.get("c_decl", "").rstrip())
                     for t in raw.constants["typedefs"])
    chapters = _families(raw, tables, {g.name: g for g in groups}, errors)
    api = Api(tuple(tables.values()), tuple(raw.types["sizes"]), groups, typedefs, tuple(chapters))
    eps = []
    for ch in chapters:
        for fam in ch.families:
            eps += expand_family(fam, api.sizes)
    names: dict[tuple, list[EntryPoint]] = {}
    for ep in eps:
        key = (ep.name, ep.is_template, ep.team_form)  # a team overload shares its name with the world form
        for other in names.get(key, []):
            if not _overloads(ep.family, other.family):
                errors.append(f"{ep.family.file}:{ep.family.line}: entry point '{ep.name}' is produced twice "
                              f"(also by family '{other.family.name}')")
            elif ep.param_types == other.param_types:
                errors.append(f"{ep.family.file}:{ep.family.line}: family '{ep.family.name}': overload "
                              f"'{ep.decl}' has the parameter types of family '{other.family.name}'")
        names.setdefault(key, []).append(ep)
    symbols: dict[str, EntryPoint] = {ep.name: ep for ep in eps if not ep.forwards}
    for ep in eps if not errors else ():
        if ep.forwards and ep.c_name in symbols:
            errors.append(f"{ep.family.file}:{ep.family.line}: the C symbol '{ep.c_name}' of '{ep.decl}' is "
                          f"taken by family '{symbols[ep.c_name].family.name}'")
        elif ep.forwards:
            symbols[ep.c_name] = ep
    if errors:
        raise SpecError(errors)
    osh = raw.constants.get("openshmem", {"macros": [], "typedefs": []})
    extra = build_extra(raw.openshmem_extra, tables) if raw.openshmem_extra is not None else None
    return Api(api.tables, api.sizes, groups, typedefs, api.chapters, tuple(eps),
               tuple(Macro(m["name"], m["value"], m["doc"]) for m in osh["macros"]),
               tuple(Typedef(t["name"], t["doc"], t["decl"].rstrip(), "shmem") for t in osh["typedefs"]),
               tuple((tuple(u["names"]), " ".join(u["reason"].split())) for u in osh.get("unsupported", ())), extra)


def _overloads(a: Family, b: Family) -> bool:
    """Whether two families are meant to be overloads of one routine: they have the same symbol and
    at least one of them chose it with the 'symbol' key (a name never becomes shared by accident)."""
    return a.symbol == b.symbol and (a.symbol != a.name or b.symbol != b.name)
