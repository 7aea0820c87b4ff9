#!/usr/bin/env python3
"""Extract the messages of ``chinchon``, update every catalog and compile it.

Run from anywhere, after changing or adding messages::

    python scripts/update_catalogs.py          # extract, update the .po files, compile the .mo files
    python scripts/update_catalogs.py --check  # only list what is missing; exit 1 if anything is

It does what these commands do, and fills the English catalog from the
message ids (English is the language of the source)::

    pybabel extract -F babel.cfg -k N_ -k _ -k ngettext:1,2 -k pgettext:1c,2 -o chinchon/locale/chinchon.pot chinchon
    pybabel update -i chinchon/locale/chinchon.pot -d chinchon/locale -D chinchon --no-fuzzy-matching
    pybabel compile -d chinchon/locale -D chinchon

New messages come out untranslated in the other languages: translate them in
``chinchon/locale/<lang>/LC_MESSAGES/chinchon.po`` and run the script again.
Files whose messages did not change are left as they are.
"""

from __future__ import annotations

import argparse
import copy
import io
import os
import re
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chinchon"
LOCALE_DIR = PACKAGE / "locale"
TEMPLATE = LOCALE_DIR / "chinchon.pot"
DOMAIN = "chinchon"
LANGUAGES = ("en", "es", "pt", "fr", "pl", "ar")
KEYWORDS = ("N_", "_", "ngettext:1,2", "pgettext:1c,2")
_HEADER = dict(project="chinchon", version="0.1.0", copyright_holder="the chinchon developers")
# Header lines that change on every run; they alone never make a file be rewritten.
_VOLATILE = re.compile(rb'^"(POT-Creation-Date|PO-Revision-Date|Generated-By): .*$', re.MULTILINE)


def extract() -> Catalog:
    """A fresh template of every message in the package, as ``pybabel extract`` makes it."""
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / "chinchon.pot"
        args = ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "--no-wrap"]
        for keyword in KEYWORDS:
            args += ["-k", keyword]
        args += [f"--{key.replace('_', '-')}={value}" for key, value in _HEADER.items()]
        args += ["-o", str(pot), PACKAGE.name]
        cwd = Path.cwd()
        os.chdir(ROOT)  # so that the locations read chinchon/<module>.py
        try:
            CommandLineInterface().run(args)  # type: ignore[no-untyped-call]
        finally:
            os.chdir(cwd)
        with open(pot, "rb") as f:
            return read_po(f)


def po_path(lang: str) -> Path:
    """The catalog of a language."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: str) -> Catalog:
    """The committed catalog of a language."""
    with open(po_path(lang), "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def is_translated(message: Message) -> bool:
    """Whether every form of a message has a non-empty translation that is not fuzzy."""
    if message.fuzzy:
        return False
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return all(strings)


def missing(catalog: Catalog, template: Catalog) -> list[str]:
    """The message ids of the template that the catalog lacks or has not translated."""
    out = []
    for message in template:
        if not message.id:
            continue
        entry = catalog.get(message.id, message.context)
        if entry is None or not is_translated(entry):
            out.append(message.id if isinstance(message.id, str) else message.id[0])
    return out


def updated(lang: str, template: Catalog) -> Catalog:
    """A language's catalog brought up to the template: new messages added, gone ones dropped."""
    path = po_path(lang)
    catalog = read_catalog(lang) if path.exists() else Catalog(locale=lang, domain=DOMAIN, fuzzy=False, **_HEADER)
    catalog.update(copy.deepcopy(template), no_fuzzy_matching=True)
    catalog.obsolete.clear()
    if lang == "en":
        for message in catalog:
            if message.id and not is_translated(message):
                message.string = message.id
                message.flags.discard("fuzzy")
    return catalog


def _po_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, ignore_obsolete=True, include_lineno=False, sort_output=True)
    return buffer.getvalue()


def _mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and _VOLATILE.sub(b"", path.read_bytes()) == _VOLATILE.sub(b"", data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def main(argv: list[str] | None = None) -> int:
    """Update and compile the catalogs, or with ``--check`` only report what is missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a message is untranslated")
    args = parser.parse_args(argv)
    template = extract()
    problems = 0
    if not args.check and _write_if_changed(TEMPLATE, _po_bytes(template)):
        print(f"wrote {TEMPLATE.relative_to(ROOT)}")
    for lang in LANGUAGES:
        catalog = updated(lang, template)
        lacking = missing(catalog, template)
        for msgid in lacking:
            print(f"{lang}: untranslated: {msgid!r}")
        problems += len(lacking)
        if args.check:
            continue
        path = po_path(lang)
        if _write_if_changed(path, _po_bytes(catalog)):
            print(f"wrote {path.relative_to(ROOT)}")
        with open(path, "rb") as f:
            compiled = read_po(f, locale=lang, domain=DOMAIN)
        mo = path.with_suffix(".mo")
        if _write_if_changed(mo, _mo_bytes(compiled)):
            print(f"wrote {mo.relative_to(ROOT)}")
    if problems:
        print(f"{problems} messages untranslated", file=sys.stderr)
    return 1 if problems and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
