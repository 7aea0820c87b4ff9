"""The catalogs and the language API: complete translations, compiled catalogs, RTL text."""

from __future__ import annotations

import io
import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo, write_mo

from chinchon.cards import Card, Suit
from chinchon.errors import ChinchonError, NotationError
from chinchon.i18n import (
    LANGUAGES,
    LanguageError,
    _,
    card_name,
    for_terminal,
    get_language,
    is_rtl,
    ngettext,
    set_language,
    suit_name,
    translate_error,
)
from chinchon.rules import Rules, RulesError
from tests.scripts import load_script

catalogs = load_script("update_catalogs")


@pytest.fixture(scope="module")
def template() -> Catalog:
    """A fresh extraction of every message of the package."""
    extracted: Catalog = catalogs.extract()
    return extracted


pytestmark = pytest.mark.usefixtures("english")


_PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def forms(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """A message id or translation as a tuple of its forms (one unless plural)."""
    if value is None:
        return ("",)
    return (value,) if isinstance(value, str) else tuple(value)


# -- the catalogs --------------------------------------------------------------------


def test_extraction_finds_the_messages_of_every_layer(template: Catalog) -> None:
    ids = {message.id if isinstance(message.id, str) else message.id[0] for message in template if message.id}
    assert "not a card: {text}" in ids  # cards.py
    assert "unknown preset {value}; known presets: {known}" in ids  # rules.py
    assert "Hand: {cards}" in ids  # cli.py
    assert template.get("coins", "Spanish deck") is not None  # i18n.py, with a context


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_translates_every_message(lang: str, template: Catalog) -> None:
    catalog = catalogs.read_catalog(lang)
    assert catalogs.missing(catalog, template) == []
    for message in template:
        if not message.id:
            continue
        entry = catalog.get(message.id, message.context)
        assert entry is not None
        assert not entry.fuzzy, message.id
        assert all(forms(entry.string)), message.id
        if isinstance(message.id, str):
            assert placeholders(entry.string) == placeholders(message.id), (lang, message.id, entry.string)
        else:
            # A plural form may leave the number out ("one card"), never name a parameter the code lacks.
            allowed = placeholders(message.id[0]) | placeholders(message.id[1])
            strings = forms(entry.string)
            assert len(strings) == catalog.num_plurals, message.id
            for string in strings:
                assert placeholders(string) <= allowed, (lang, message.id, string)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_has_no_stale_messages(lang: str, template: Catalog) -> None:
    catalog = catalogs.read_catalog(lang)
    wanted = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template if m.id}
    have = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalog if m.id}
    assert have - wanted == set(), "stale: run scripts/update_catalogs.py"
    assert wanted - have == set(), "missing: run scripts/update_catalogs.py"


def test_template_is_up_to_date(template: Catalog) -> None:
    with open(catalogs.TEMPLATE, "rb") as f:
        committed = catalogs.read_po(f)
    committed_ids = {(forms(m.id), m.context) for m in committed if m.id}
    fresh_ids = {(forms(m.id), m.context) for m in template if m.id}
    assert fresh_ids - committed_ids == set(), "run scripts/update_catalogs.py"
    assert committed_ids - fresh_ids == set(), "run scripts/update_catalogs.py"


def _messages(catalog: Catalog) -> dict[tuple[tuple[str, ...], str | None], tuple[str, ...]]:
    """Every translated message: (id forms, context) to translation forms."""
    return {(forms(m.id), m.context): forms(m.string) for m in catalog if m.id and all(forms(m.string))}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compiled_catalog_matches_its_source(lang: str) -> None:
    source = catalogs.read_catalog(lang)
    fresh = io.BytesIO()
    write_mo(fresh, source, use_fuzzy=False)
    fresh.seek(0)
    with open(catalogs.po_path(lang).with_suffix(".mo"), "rb") as f:
        committed = read_mo(f)
    assert _messages(committed) == _messages(read_mo(fresh)) == _messages(source)
    assert _messages(committed)


# -- the language API ----------------------------------------------------------------


def test_switching_language_changes_messages() -> None:
    assert _("Hand: {cards}") == "Hand: {cards}"
    assert set_language("es") == "es"
    assert get_language() == "es"
    assert _("Hand: {cards}") == "Mano: {cards}"
    set_language("pl_PL.UTF-8")
    assert _("Hand: {cards}") == "Ręka: {cards}"
    set_language("pt-BR")
    assert _("Hand: {cards}") == "Mão: {cards}"


def test_plural_forms_follow_the_language() -> None:
    singular = "a hand has {size} cards, or {drawn} with the card just drawn; got {count} card"
    plural = "a hand has {size} cards, or {drawn} with the card just drawn; got {count} cards"
    assert ngettext(singular, plural, 1).endswith("{count} card")
    assert ngettext(singular, plural, 5).endswith("{count} cards")
    set_language("pl")
    assert [ngettext(singular, plural, n).rsplit(" ", 1)[1] for n in (1, 3, 5, 22, 25)] == [
        "kartę",
        "karty",
        "kart",
        "karty",
        "kart",
    ]
    set_language("fr")
    assert ngettext(singular, plural, 0).endswith("{count} carte")  # French: 0 is singular


def test_language_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    assert set_language(None) == "en"
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert set_language(None) == "fr"
    monkeypatch.setenv("LANGUAGE", "de:ar")  # no German catalog: the next one
    assert set_language(None) == "ar"
    monkeypatch.setenv("LANGUAGE", "")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # LC_ALL wins over LANG, and C is English
    assert set_language(None) == "en"


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(LanguageError, match="unknown language 'xx'; known languages: en, es, pt, fr, pl, ar"):
        set_language("xx")
    assert get_language() == "en"


def test_translate_error() -> None:
    with pytest.raises(NotationError) as notation:
        Card.parse("zz")
    with pytest.raises(RulesError) as rules:
        Rules(max_players=6)
    assert translate_error(notation.value) == "not a card: 'zz'"
    set_language("es")
    assert translate_error(notation.value) == "no es una carta: 'zz'"
    set_language("fr")
    assert translate_error(rules.value) == (
        "max_players : 6 joueurs avec 7 cartes chacun et une carte retournée demandent 43 cartes ; "
        "le jeu spanish40 en a 40"
    )


def test_translate_error_without_a_translation_is_english() -> None:
    set_language("es")
    assert translate_error(ChinchonError("no translation for {thing}", thing="this")) == "no translation for this"


SUITS = {
    "en": ["coins", "cups", "swords", "clubs"],
    "es": ["oros", "copas", "espadas", "bastos"],
    "pt": ["ouros", "copas", "espadas", "paus"],
    "fr": ["deniers", "coupes", "épées", "bâtons"],
    "pl": ["denary", "kielichy", "miecze", "buławy"],
    "ar": ["ذهب", "كؤوس", "سيوف", "عصي"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_suit_names(lang: str) -> None:
    set_language(lang)
    assert [suit_name(suit) for suit in (Suit.OROS, Suit.COPAS, Suit.ESPADAS, Suit.BASTOS)] == SUITS[lang]


@pytest.mark.parametrize(
    ("lang", "card", "deck", "name"),
    [
        ("en", "J♥", "spanish40", "jack of cups"),
        ("en", "Q♣", "spanish40", "knight of clubs"),
        ("en", "Q♣", "french52", "queen of clubs"),
        ("es", "J♥", "spanish40", "sota de copas"),
        ("es", "Q♠", "spanish40", "caballo de espadas"),
        ("es", "K♣", "french52", "rey de tréboles"),
        ("pt", "A♦", "spanish40", "ás de ouros"),
        ("fr", "A♠", "spanish40", "as d'épées"),
        ("fr", "7♥", "french52", "7 de cœur"),
        ("pl", "A♥", "spanish40", "as kielichów"),
        ("pl", "K♠", "spanish40", "król mieczy"),
        ("ar", "K♠", "spanish40", "ملك السيوف"),
        ("es", "🃏", "spanish40", "comodín"),
    ],
)
def test_card_names(lang: str, card: str, deck: str, name: str) -> None:
    set_language(lang)
    assert card_name(Card.parse(card), deck=deck) == name


# -- right-to-left text --------------------------------------------------------------


def test_is_rtl() -> None:
    assert is_rtl("ar")
    assert is_rtl("ar_EG.UTF-8")
    assert not is_rtl("es")
    assert not is_rtl()
    set_language("ar")
    assert is_rtl()


def test_for_terminal_reorders_arabic_only() -> None:
    text = "اليد: 3♥ 4♥ 5♥"
    assert for_terminal(text) == text  # English is current
    set_language("ar")
    # The Arabic label reads right to left; the cards keep their order and their text.
    assert for_terminal(text) == "3♥ 4♥ 5♥ :ديلا"
    assert for_terminal("10♣ ليست في مجموعة spanish40") == "spanish40 ةعومجم يف تسيل 10♣"
    # Brackets around right-to-left text are mirrored so that they still open and close.
    assert for_terminal("(نقطة)") == "(ةطقن)"
    assert for_terminal("hand\nيد") == "hand\nدي"
    assert for_terminal("Hand: 3♥") == "Hand: 3♥"  # no right-to-left text: unchanged
    # A line that opens with a Latin name is still laid out right to left.
    assert for_terminal("Ana سحبت 3♥") == "3♥ تبحس Ana"


def test_for_terminal_keeps_paths_and_addresses_whole() -> None:
    set_language("ar")
    assert for_terminal("تعذرت كتابة /tmp/x.json: لا") == "ال :/tmp/x.json ةباتك ترذعت"
    assert for_terminal("كُتب في /home/u/a-1.json.") == "./home/u/a-1.json يف بتُك"
    assert for_terminal(r"قراءة C:\Users\x.json: خطأ") == r"أطخ :C:\Users\x.json ةءارق"
    assert for_terminal("إلى tcp://host:8786: رفض") == "ضفر :tcp://host:8786 ىلإ"
    assert for_terminal("كُتب في /tmp/x.json، ثم") == "مث ،/tmp/x.json يف بتُك"  # an Arabic comma after it
    assert for_terminal("الحفظ (/tmp/x.json) الآن") == "نآلا (/tmp/x.json) ظفحلا"
    # A slash between right-to-left words is theirs.
    assert for_terminal("و/أو") == "وأ/و"


def test_for_terminal_keeps_left_to_right_runs_whole() -> None:
    """An option, a command or a letter list inside Arabic keeps its own order, dashes and dots included."""
    set_language("ar")
    assert for_terminal("الخروج عبر --resume") == "--resume ربع جورخلا"
    assert for_terminal("يستأنفها الأمر chinchon play --resume.") == ".chinchon play --resume رمألا اهفنأتسي"
    assert for_terminal("اضغط -h للمساعدة") == "ةدعاسملل -h طغضا"
    assert for_terminal("الحروف c… في") == "يف c… فورحلا"
    # A name and what is in brackets after it stay together, as before.
    assert for_terminal("Bot 1 (simple) يلعب") == "بعلي Bot 1 (simple)"
    assert for_terminal("خذ A♣ (d) الآن") == "نآلا (d) A♣ ذخ"


def test_for_terminal_with_an_explicit_language() -> None:
    assert for_terminal("يد", lang="ar") == "دي"
    set_language("ar")
    assert for_terminal("يد", lang="en") == "يد"
