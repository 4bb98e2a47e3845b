"""What a description says users will notice in how they configure or run the code, and what it
says is left for later: `interface_of` and `next_steps_of`, over `digest._sections`' units.

An interface change is an option, flag, argument, environment variable, configuration key or
load format added, removed, renamed, given a new default or a new type ("`dump_config` is
changed from dict to string", "correct `enable_async_exponential` type"; told where the fact
model has the kind, `TYPE_CHANGES`) ("remove `sp_threshold` in additional config", "a feature … enabled by the `VLLM_ASCEND_BALANCE_SCHEDULING` environment variable",
"provide its own default `max_cudagraph_capture_size`", "add an new options for load-format:
rfork"). A next step is a sentence that says the change is temporary or announces what comes
after it ("This will be discard after …", "2nd PR for #5712", "Further testing should be done").
Every sentence returned is a span of the body (the digest's `is_span`); names are written as
the body writes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Protocol, get_args

from shared.events.enriched import InterfaceChange, InterfaceKind

MAX_CHANGES = 4
MAX_STEPS = 2
# whether the fact model tells a setting's new type (InterfaceKind "type"): until it does, the
# type changes a description names are found (`interface_of(..., type_changes=…)`) but not told
TYPE_CHANGES = "type" in get_args(InterfaceKind)


class _UnitLike(Protocol):
    raw: list[str]

    @property
    def text(self) -> str: ...


class _SectionLike(Protocol):
    kind: str
    units: list  # of _UnitLike


# ---------------------------------------------------------------- interface changes

# what users set: an option, a flag, an argument, an environment variable, a configuration key
_NOUN = re.compile(
    r"(?i)\b(?:options?|flags?|(?:cli |command[- ]line )?arguments?|args?|parameters?|params?"
    r"|env(?:ironment)?[\s_-]*var(?:iable)?s?|envs?|config(?:uration)?s?|keys?|settings?|knobs?"
    r"|switch(?:es)?|load[- ]formats?)\b(?!-)"
)
# a name as a sentence writes it: `--a-flag`, AN_ENV_VAR, a_config_key, a.dotted_key
_FLAG = r"--[a-z][\w-]*[a-z0-9]"
_ENV = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}"
_SNAKE = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.[a-z][a-z0-9_]*)*"
_NAME = re.compile(rf"(?<![\w./-])(?:{_FLAG}|{_ENV}|{_SNAKE})(?![\w/-]|\.\w|\()")


def _may_name(text: str) -> bool:
    """Whether `text` may hold a `_NAME`: each of its kinds holds "--" or "_" (tested first,
    being ~100x cheaper than the expression tried at every character)."""
    return "_" in text or "--" in text


# a code span that can name a setting (not a call, a path, a file or an expression)
_CODE = re.compile(r"`([^`\n]+)`")
# (a code span names a setting as a flag, an environment variable or a lower-case key; not a
# class, a private name or a call)
_CODE_NAME = re.compile(rf"{_FLAG}|{_ENV}|[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+(?:\.[a-z][a-z0-9_]*)*")
_FILE = re.compile(r"\.(?:py|pyi|cpp|cc|c|h|hpp|cu|yaml|yml|json|toml|md|sh|txt)$")
# the option named with its value: "options for load-format: rfork", "--load-format rfork"
_VALUE_OF = re.compile(
    r"(?i)\b(?:options?|values?|choices?|modes?)\s+(?:for|of|to)\s+(?P<name>-{0,2}[a-z][\w-]*)"
    r"\s*[:=]\s*(?P<value>[\w.-]+)"
)
_VALUE_WORDS = ("option", "value", "choice", "mode")


def _may_value(text: str) -> bool:
    """Whether `text` may hold a `_VALUE_OF`: its words, as substrings of ASCII text (`(?i)`
    also folds "ı" and "İ" to "i": other text is left to the expression)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(w in low for w in _VALUE_WORDS)


# the verbs that say what happens to a name, the nearest before it governing it
_VERB = re.compile(
    r"(?i)\b(?:(?P<added>add(?:s|ed|ing)?|introduc\w*|new|expos\w*|provid\w*)"
    r"|(?P<removed>remov\w*|delet\w*|drop(?:s|ped|ping)?|deprecat\w*|retir\w*|get rid of)"
    r"|(?P<renamed>renam\w*)"
    r"|(?P<stop>and|but|while|reuse\w*|use[sd]?|using|keep\w*|replac\w*|read\w*|pass\w*|call\w*"
    r"|instead|unchanged|preserved|if|when|fix\w*|caus\w*|find|found|miss\w*|support\w*|check\w*"
    r"|warn\w*|log\w*|print\w*|patch\w*"
    # what is added is a message about the setting, not the setting ("a prompt has been added
    # for setting the cp_kv_cache_interleave_size", real #5561)
    r"|prompts?|hints?|messages?|tips?|notices?|reminders?|(?:for|when|by)\s+(?:setting|configuring)))\b"
)
# a verb of what happened before ("the bug introduced by #1229, which add an arg …"), not of
# what this change does
_BEFORE = re.compile(r"(?i)\b(?:which|that|previously|had|was|were)\s+$")
_PASSIVE = re.compile(r"(?i)\s+(?:by|in)\b")
# "in additional_config", "from PYTORCH_NPU_ALLOC_CONF": where the setting lives, not the setting
_CONTAINER = re.compile(r"(?i)\b(?:in|to|under|into|of|from|via|for)\s+(?:the\s+)?$")
# "renamed `a` to `b`", "`a` is renamed to `b`"
_RENAMED_TO = re.compile(r"(?i)\brenamed?\b[^.]{0,40}?\bto\b")
_RENAMED_AS = re.compile(
    r"""(?i)[\s`'"]*(?:(?:option|flag|key|variable|argument|parameter|setting)[\s`'"]*)?"""
    r"(?:(?:is|are|was|were|has been|have been|gets?|got)\s+)?renamed\s+(?:to|as|into)[\s`'\"]*"
)
# a new default: the sentence says a default changes, not that one exists
_DEFAULT = re.compile(
    r"(?i)\b(?:(?:new|its own|changes?|changed|changing|set|sets)\s+(?:the\s+)?(?:\w+\s+){0,2}"
    r"?defaults?|defaults?\s+(?:\w+\s+)?(?:was|has been|is now|now|changes?|changed|becomes?)\b"
    r"|by default\b[^.]{0,40}\bnow\b|\bnow\b[^.]{0,40}\bby default"
    r"|defaults? (?:to|of)\b[^.]{0,60}\b(?:instead of|now|changed|from)\b)"
)
_DEFAULT_WORD = re.compile(r"(?i)\bdefault(?:s|ed|ing)?\b")
_NO_DEFAULT = re.compile(
    r"(?i)\bno (?:\w+ )?default change|\b(?:not|never) chang\w* (?:the |any )?defaults?|\bin earlier"
)
NEAR_DEFAULT = 30  # characters between "default" and the name it is the default of
# a sentence about code, not about what users set ("the with_prefill parameter from
# set_ascend_forward_context", "parameter N of the kernel", "arg in model_runner_v1.py")
_INTERNAL = re.compile(
    r"(?i)\b(?:functions?|methods?|class(?:es)?|kernels?|signatures?|helpers?|attributes?|fields?"
    r"|constexpr|qualifiers?|decorators?|return(?:s|ed)?|variables? in|ops?|operators?|operations?"
    r"|folders?|director(?:y|ies)|implementations?)\b"
    # a function's parameter: "the with_prefill parameter from set_ascend_forward_context"
    r"|\b(?:param(?:eter)?s?|args?|arguments?)\s+(?:from|of|in|to)\s+(?:the\s+)?[a-z]\w*_\w+"
)
_CALL = re.compile(r"\w\.py\b|\w\(\)")
_KEY_OF = re.compile(
    r"""(?i)[\s"'`:,]*(?:(?:key|option|switch|section|block|named|config\w*)[\s"'`:,]*)*"""
)
MAX_PER_SENTENCE = 2
# "documents the removal of `ASCEND_BUFFER_POOL`" (real #14379): what goes, not where it lives
_REMOVAL_OF = re.compile(r"(?i)\b(?:removal|deletion|deprecation|retirement)\s+of\s+(?:the\s+)?$")
# a name said to be gone after it: "The former top-level `enable_sleep_mode_extra_cleanup` option
# has also been removed" (real #13748), "`x` is no longer supported", "`x` is deprecated"
_GONE_AFTER = re.compile(
    r"""(?i)[\s`'"]*(?:(?:option|flag|key|variable|argument|parameter|setting|field|env(?:ironment)?"""
    r"""\s+var(?:iable)?)s?[\s`'"]+)?(?:(?:has|have|is|are|was|were)\s+(?:also\s+|now\s+)?"""
    r"(?:been\s+)?(?:removed|deleted|dropped|deprecated|retired)\b|(?:is|are)\s+(?:now\s+)?no\s+"
    r"longer\s+(?:supported|accepted|read|used|valid|available|honou?red|recogni[sz]ed|effective)\b)"
)
# the words that say a setting goes; with them a description that answers "no user-facing
# change" still tells of a backticked setting it removes or renames (#14379 documents the removal
# of `ASCEND_BUFFER_POOL`)
_GONE_WORDS = re.compile(
    r"(?i)\b(?:remov(?:e|al|ed|es|ing)|no longer|migrat\w*|deprecat\w*|renam\w*|delet\w*)\b"
)
_ENV_NAME = re.compile(_ENV)
# a name said to go by a pronoun after it: "`VLLM_ENABLE_FUSED_EXPERTS_ALLGATHER_EP` is not used
# anywhere, let's remove it" (real #5270)
_IT_GONE = re.compile(r"(?i)[^.;]{0,60}?\b(?:remov|delet|drop)\w*\s+(?:it|them)\b")
# a paragraph that says what it adds changes nothing users see: "Add the now-necessary
# `all2all_backend` parameter. … it has no effect on the `vllm-ascend` logic" (real #5223)
_NO_EFFECT = re.compile(
    r"(?i)\b(?:has|have|had|with|takes?)\s+no\s+(?:\w+\s+)?(?:effect|impact)\b"
    r"|\b(?:does|do)\s+not\s+(?:take\s+)?(?:effect|affect)\b|\bno-?op\b"
)
# where a name is taken out of is no setting gone: documentation, examples, test configurations
# ("removes the redundant --async-scheduling configuration option from various model deployment
# tutorials" real #13093; "from e2e weekly test configurations" #13859); a setting users set is
# named as one (not an unused parameter of a function, #12193), an upper-case name as no table
_NOT_GONE = re.compile(
    r"(?i)\bfrom\b[^.;]{0,60}\b(?:docs?|documentation|tutorials?|examples?|guides?|readme|reference"
    r"|\w+\.md)\b"
    # "Remove VLLM_USE_V1 in example and tests", "… usage in code" (real #1733, #1764)
    r"|\bin\s+(?:the\s+)?(?:\w+\s+){0,2}(?:docs?|examples?|tests?|code)\b"
    r"|\b(?:nightly|e2e|ci|weekly|tests?)\s+(?:test\s+)?config\w*"
    r"|\b(?:unused|internal)\b"
)
_USER_NOUN = re.compile(
    r"(?i)\b(?:options?|flags?|env(?:ironment)?[\s_-]*var(?:iable)?s?|envs?|config(?:uration)?\s+"
    r"(?:keys?|options?|fields?|items?)|settings?|knobs?|switch(?:es)?)\b"
)
_TABLE_AFTER = re.compile(
    r"(?i)[\s`]+(?:dict\w*|lists?|constants?|mappings?|maps?|tables?|tuples?|enums?)\b"
)
# a setting's type, as descriptions write it: a built-in type, a generic of one ("list[int]",
# "Optional[str]"); "set" is no type here (a verb more often than not)
_TYPE = (
    r"`?(?:(?:dict(?:ionary)?|str(?:ing)?|int(?:eger)?|float|bool(?:ean)?|list|tuple|json"
    r"|enum|mapping|path)s?(?:\[[^\]\n]{1,40}\])?"
    r"|(?:Optional|Union|Literal|List|Dict|Tuple)\[[^\]\n]{1,40}\])`?"
)
# a name's type said to change, after the name: "dump_config is changed from dict to string"
# (real #5296), "`x`'s type changes to `int`", "the type of `x` is now `bool`"
_TYPE_AFTER = re.compile(
    r"(?i)['’]?s?[`\s]*(?:(?:option|flag|setting|key|variable|argument|parameter|config\w*)s?\s+)?"
    r"(?:(?:type|data\s*type|dtype)\s+)?(?:(?:is|are|was|were|has\s+been|have\s+been"
    r"|gets?|got)\s+)?(?:now\s+)?(?:chang\w*|convert\w*|switch\w*|turn\w*|mov\w*)?\s*"
    rf"from\s+(?:an?\s+)?{_TYPE}\s+(?:in)?to\s+(?:an?\s+)?{_TYPE}"
    r"|['’]?s?[`\s]+(?:type|data\s*type|dtype)\s+(?:(?:is|was|has\s+been)\s+)?(?:now\s+)?"
    rf"(?:chang\w*|convert\w*|switch\w*|correct\w*)\b(?:\s+(?:from\s+{_TYPE}\s+)?to\s+{_TYPE})?"
)
# before it: "change the type of `x` (from …) to …", "correct `enable_async_exponential` type"
# (real #5296, with the word "type" after the name)
_TYPE_BEFORE = re.compile(
    r"(?i)\b(?:chang\w*|convert\w*|correct\w*|fix\w*|updat\w*|switch\w*)\s+(?:the\s+)?"
    r"(?:(?:type|data\s*type|dtype)\s+of\s+(?:the\s+)?)?[`\s]*$"
)
_TYPE_WORD_AFTER = re.compile(r"(?i)['’]?s?[`\s]*(?:type|data\s*type|dtype)\b(?!\s+(?:of|hint))")
_TYPE_OF = re.compile(r"(?i)\b(?:type|data\s*type|dtype)\s+of\s+(?:the\s+)?[`\s]*$")
_TYPE_GATE = re.compile(r"(?i)\btype\b|\bfrom\s+`?\w+(?:\[[^\]\n]*\])?`?\s+(?:in)?to\b")


def _type_changed(s: str, at: int, name: str) -> bool:
    """Whether `s` says the type of the name at `at` changes: "`x` is changed from dict to
    string", "`x`'s type changes to int", "change the type of `x` to bool", "correct `x` type"."""
    end = at + len(name)
    if _TYPE_AFTER.match(s, end):
        return True
    before = _TYPE_BEFORE.search(s, max(0, at - 40), at)
    if before is None:
        return False
    # "change the type of `x`" says it; "correct `x`" says it with "type" after the name
    return bool(_TYPE_OF.search(s, before.start(), at) or _TYPE_WORD_AFTER.match(s, end))


_NOT_A_SETTING = re.compile(
    r"(?i)^(?:true|false|none|null|self|cls|main|master|torch|vllm|npu|cpu|gpu|cuda|http\S*)$"
)


def _names(raw: str, sentence: str) -> list[tuple[int, str]]:
    """The names in `sentence` (plain text) that may be settings, with where they stand in it:
    code spans of the raw unit that look like a name, flags, environment variables, keys."""
    found: dict[str, int] = {}
    for m in _CODE.finditer(raw):
        code = m.group(1).strip()
        if (
            _CODE_NAME.fullmatch(code)
            and not _FILE.search(code)
            and not _NOT_A_SETTING.match(code)
            and (at := sentence.find(code)) >= 0
            and not sentence.startswith("(", at + len(code))
        ):
            found.setdefault(code, at)
    for m in _NAME.finditer(sentence) if _may_name(sentence) else ():
        if not _FILE.search(m.group(0)):
            found.setdefault(m.group(0), m.start())
    valued = set()
    for m in _VALUE_OF.finditer(sentence) if _may_value(sentence) else ():
        valued.add(f"{m.group('name')}: {m.group('value')}")
        found.setdefault(f"{m.group('name')}: {m.group('value')}", m.start("name"))
    # a name inside a longer one found ("load-format" in "load-format: rfork") goes, and so does
    # where a setting lives ("… option `x` in additional_config")
    names = sorted(
        (at, n)
        for n, at in found.items()
        if not any(n != o and n in o for o in found)
        and (
            n in valued
            or not _CONTAINER.search(sentence, max(0, at - 12), at)
            or _RENAMED_TO.search(sentence, max(0, at - 60), at)  # (the new name)
            or _REMOVAL_OF.search(sentence, max(0, at - 30), at)  # ("the removal of `x`")
            or _TYPE_OF.search(sentence, max(0, at - 30), at)  # ("the type of `x`")
        )
    )
    # "a new additional_config key `x`": the name after the noun is the setting
    return [
        (at, n)
        for i, (at, n) in enumerate(names)
        if i + 1 >= len(names) or not _KEY_OF.fullmatch(sentence, at + len(n), names[i + 1][0])
    ][:MAX_PER_SENTENCE]


def _governing(sentence: str, at: int) -> str | None:
    """The kind the nearest verb before `at` gives the name there; None when a verb of another
    clause ("… and reuse `x`") stands nearer, or the verb tells what happened before."""
    last = None
    for m in _VERB.finditer(sentence, max(0, at - 80), at):
        last = m
    if last is None or last.lastgroup == "stop":
        return None
    if _BEFORE.search(sentence, max(0, last.start() - 20), last.start()) or (
        _PASSIVE.match(sentence, last.end()) and last.lastgroup != "removed"
    ):
        return None
    return last.lastgroup


def interface_of(
    title: str,
    sections: Iterable[_SectionLike],
    user_facing: str,
    sentences: Callable[[str], list[str]],
    clip: Callable[[str], str],
    type_changes: list[tuple[str, str]] | None = None,
) -> tuple[InterfaceChange, ...]:
    """The settings a change adds, removes, renames, gives a new default or a new type, from its
    description (the user-facing answer first, then what it does) and its title. Nothing when
    the description answers that users see no change — but for a backticked setting it says is
    removed or renamed ("documents the removal of `ASCEND_BUFFER_POOL`", real #14379).

    A setting's new type is told where the description says users notice the change (its
    answer, or `user_facing` "yes") or names the setting as one; each is added to
    `type_changes` as (name, sentence) when given, and told as kind "type" where the fact model
    has that kind (`TYPE_CHANGES`)."""
    strict = user_facing == "no"
    typed: list[tuple[str, str]] = type_changes if type_changes is not None else []
    out: dict[str, InterfaceChange] = {}
    ordered = sorted(
        (s for s in sections if s.kind in ("uf", "what", "", "other")),
        key=lambda s: 0 if s.kind == "uf" else 1,
    )
    ci_title = _CI_TITLE.match(title) is not None
    for sec in ordered:
        said_uf = sec.kind == "uf" and user_facing == "yes"
        source: bool | None = None  # (whether the file a list of changes stands under is code)
        for u in sec.units:
            text = u.text
            if u.kind == "p" and (at := _path_of(u.raw)) is not None:
                source = at
            if "=" in text or "need" in text:
                _add_set(out, text, sentences, clip, not ci_title if source is None else source)
            if sec.kind == "uf" and strict:
                continue  # (an answer of "no" that says users no longer need to set a setting)
            if strict:
                if "`" not in " ".join(u.raw) or not _GONE_WORDS.search(text):
                    continue
            elif (
                "`" not in " ".join(u.raw)
                and not (_may_name(text) and _NAME.search(text))
                and "option" not in text
            ):
                continue
            raw = " ".join(u.raw)
            inert = _NO_EFFECT.search(text) is not None
            for s in sentences(text):
                if not strict and _TYPE_GATE.search(s):
                    _add_type(out, typed, s, raw, clip(s), said_uf or user_facing == "yes")
                _add(out, s, raw, clip(s), said_uf, strict, inert)
                if len(out) >= MAX_CHANGES:
                    return tuple(out.values())
    if title and len(out) < MAX_CHANGES and not strict:
        _add(out, title.replace("`", ""), title, "", False)
    return tuple(out.values())[:MAX_CHANGES]


def _add_type(
    out: dict[str, InterfaceChange],
    typed: list[tuple[str, str]],
    s: str,
    raw: str,
    quoted: str,
    users_told: bool,
) -> None:
    """A setting of `s` whose type it says changes, unless `s` is about code (a function's
    return type, a call, a kernel) or neither names a setting nor stands where users are told
    of the change."""
    if _INTERNAL.search(s) or _CALL.search(s) or not (users_told or _NOUN.search(s)):
        return
    # (every name, a name inside a longer one too: "rename it to `dump_config_path` …
    # dump_config is changed from dict to string")
    names = [m.group(1) for m in _CODE.finditer(raw) if _CODE_NAME.fullmatch(m.group(1))]
    names += [m.group(0) for m in _NAME.finditer(s)] if _may_name(s) else []
    for name in dict.fromkeys(names):
        if (
            name in out
            or any(n == name for n, _ in typed)
            or _FILE.search(name)
            or _NOT_A_SETTING.match(name)
        ):
            continue
        # (any place the sentence names it: "improve dump_config init logic … dump_config is
        # changed from dict to string", real #5296, one sentence to the splitter)
        places = re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", s)
        if not any(_type_changed(s, m.start(), name) for m in places):
            continue
        typed.append((name, quoted))
        if TYPE_CHANGES:
            # (validated by the model: its kinds are checked where they are declared)
            out[name] = InterfaceChange.model_validate(
                {"kind": "type", "name": name, "sentence": quoted}
            )


def _add(
    out: dict[str, InterfaceChange],
    s: str,
    raw: str,
    quoted: str,
    said_uf: bool,
    strict: bool = False,
    inert: bool = False,
) -> None:
    """(`inert`: the paragraph of `s` says what it adds has no effect — nothing added is told)"""
    names = _names(raw, s)
    if strict:  # (only what the description backticks, removed or renamed)
        names = [(at, n) for at, n in names if f"`{n}`" in raw]
        if not _GONE_WORDS.search(s):
            return
    if not names:
        return
    if not strict and _DEFAULT.search(s) and not _NO_DEFAULT.search(s) and not _INTERNAL.search(s):
        # the name next to "default" ("its own default `x`", "`x` default changed")
        for d in _DEFAULT_WORD.finditer(s):
            near = [
                (min(abs(at - d.end()), abs(d.start() - at - len(n))), n)
                for at, n in names
                if at - d.end() <= NEAR_DEFAULT and d.start() - at - len(n) <= NEAR_DEFAULT
            ]
            if near:
                name = min(near)[1]
                if name not in out:
                    out[name] = InterfaceChange(kind="default", name=name, sentence=quoted)
                return
    # a sentence of what the change does must name what kind of setting it is; the answer to
    # "user-facing change?" is about settings already
    # (an environment variable's name says what it is, when the sentence says it goes)
    env_gone = (
        not said_uf
        and not _NOUN.search(s)
        and any(_ENV_NAME.fullmatch(n) for _, n in names)
        and _GONE_WORDS.search(s) is not None
    )
    if (
        (not said_uf and not _NOUN.search(s) and not env_gone)
        or _INTERNAL.search(s)
        or _CALL.search(s)
    ):
        return
    if (strict or env_gone) and (
        _NOT_GONE.search(s)
        or (
            strict
            and not _USER_NOUN.search(s)
            and not any(_ENV_NAME.fullmatch(n) for _, n in names)
        )
    ):
        return
    for i, (at, name) in enumerate(names):
        if name in out and out[name].kind != "default":
            continue
        if i + 1 < len(names) and _RENAMED_AS.fullmatch(s, at + len(name), names[i + 1][0]):
            # "`a` is renamed to `b`", "`a` has been renamed as `b`"
            new = names[i + 1][1]
            out[name] = InterfaceChange(kind="renamed", name=name, new_name=new, sentence=quoted)
            return
        gone = _GONE_AFTER.match(s, at + len(name)) or (
            (it := _IT_GONE.match(s, at + len(name)))
            and (i + 1 >= len(names) or names[i + 1][0] >= it.end())
        )
        kind = "removed" if gone else _governing(s, at)
        if name in out and kind != "removed":
            continue  # (a new default the change gives by taking the setting away is "removed")
        if (
            kind is None
            or (strict and kind not in ("removed", "renamed"))
            or (inert and kind == "added")
        ):
            continue
        if (strict or env_gone) and _TABLE_AFTER.match(s, at + len(name)):
            continue  # ("Removed QUANT_MODEL_PREFIX_MAPPINGS dictionary", real #7596)
        if kind == "renamed":
            after = names[i + 1][1] if i + 1 < len(names) else ""
            if not after or not _RENAMED_TO.search(s, 0, names[i + 1][0]):
                continue
            out[name] = InterfaceChange(kind="renamed", name=name, new_name=after, sentence=quoted)
            return
        out[name] = InterfaceChange(kind=kind, name=name, sentence=quoted)


# a setting this change gives a value users get unless they set another — an environment
# variable the code now sets, or one users no longer need to set: told as a new default.
# "Set `VLLM_USE_V2_MODEL_RUNNER=0` for non-`0.23.0`." (real #10935, under the file it changes),
# "- sets `VLLM_SERVER_DEV_MODE=1`;" (#13748): the sentence starts with the verb, what the change
# does; an environment variable's name with its value (a lower-case `x = 0` is a variable of
# the code more often than not: "set `need_gather_q_kv=False`", #7390)
_SETS = re.compile(
    r"(?i)^\W*(?:(?:this|the) (?:pr|patch|change|commit)\s+|we\s+|it\s+)?(?:also\s+|now\s+)?"
    r"(?:set|sets|force[sd]?)\s+(?:the\s+)?(?:env(?:ironment)?\s+var(?:iable)?s?\s+)?"
    rf"`?(?-i:(?P<name>{_ENV}))`?\s*=\s*`?[\w.:-]+"
)
# "users no longer need to set `X=1`", "Users do not need to set `X=…` manually any more" (real
# #10333, #5855): what they set by hand the change now does for them
_NO_NEED = re.compile(
    r"(?i)\b(?:no longer|(?:do|does)\s+not|don't|doesn't|no)\s+(?:\w+\s+)?need(?:s|ed)?\s+to\s+"
    r"(?:manually\s+|explicitly\s+)?(?:set|export|specify|configure)\s+(?:the\s+)?"
    r"(?:env(?:ironment)?\s+var(?:iable)?s?\s+)?`?(?-i:(?P<name>"
    + _ENV
    + r"))`?(?:\s*=\s*`?[\w.:-]+`?)?(?P<rest>[^.;]*)"
)
_ANY_MORE = re.compile(r"(?i)\b(?:any\s?more|no longer)\b")
# not of this change's code: a test, CI, a workflow, a deployment, an example, what users may do
_NOT_SET_HERE = re.compile(
    r"(?i)\b(?:tests?|testing|e2e|ci|nightly|workflows?|pipelines?|jobs?|runners?|containers?"
    r"|docker\w*|pods?|clusters?|yaml|templates?|examples?|docs?|documentation|tutorials?|guides?"
    r"|scripts?|benchmarks?|if|when|whether|unless|users?|you|can|could|may|might|should|must"
    r"|previously|before)\b"
)
# a change titled as CI, tests or docs sets what it sets there, unless the sentence stands under
# a file of the code it changes ("[CI] upgrade vllm to 0619" lists `vllm_ascend/__init__.py`,
# real #10935; "[CI] Set HCCL_IF_BASE_PORT for 560T cluster" sets its workflows', #12303)
_CI_TITLE = re.compile(
    r"(?i)^\s*(?:\[[^\]]*\]\s*)*?\[(?:ci|tests?|ut|e2e|docs?|nightly|bench\w*)\]"
)
# a paragraph that is only a file's path: the list after it changes that file
_LONE_PATH = re.compile(r"^\W*`?(?P<path>[\w.-]+(?:/[\w.-]+)+|[\w-]+\.(?:py|cpp|cc|h|sh))`?\W*$")
_NOT_SOURCE = re.compile(
    r"(?i)(?:^|/)(?:tests?|\.github|docs?|examples?|benchmarks?|tools|scripts|ci)(?:/|$)"
    r"|\.(?:ya?ml|md|txt|jinja2?|json|toml|cfg|ini)$|(?:^|/)test_[\w]*\.py$"
)


def _path_of(raw: list[str]) -> bool | None:
    """For a paragraph that is only a file's path: whether that file is code users run (not a
    test, a workflow, a document or an example); None for any other paragraph."""
    if len(raw) != 1 or "/" not in raw[0] and "." not in raw[0]:
        return None
    m = _LONE_PATH.match(raw[0].strip())
    if m is None:
        return None
    return _NOT_SOURCE.search(m.group("path")) is None


def _add_set(
    out: dict[str, InterfaceChange],
    text: str,
    sentences: Callable[[str], list[str]],
    clip: Callable[[str], str],
    source: bool,
) -> None:
    """The environment variables a unit says this change sets (where it stands in the code users
    run, `source`) or says users no longer need to set: each a new default."""
    for s in sentences(text):
        if "=" in s and source and (m := _SETS.match(s)) is not None:
            if not _NOT_SET_HERE.search(s, m.end()) and m.group("name") not in out:
                out[m.group("name")] = InterfaceChange(
                    kind="default", name=m.group("name"), sentence=clip(s)
                )
            continue
        if "need" in s and (n := _NO_NEED.search(s)) is not None:
            gone = n.group(0).lower().startswith("no longer") or _ANY_MORE.search(n.group("rest"))
            name = n.group("name")
            if gone and name not in out:
                out[name] = InterfaceChange(kind="default", name=name, sentence=clip(s))


# ---------------------------------------------------------------- next steps

# what a description admits is left open ("there are several issues remain to be resolved:",
# "Known issues:", "Remaining problem: there are still some bugs …", real #9572, #4400, #7959):
# a plan or unfinished work, never what the change does (the digest's what stops before it)
OPEN_WORK = re.compile(
    r"(?i)\b(?:there (?:are|is|remains?) (?:still )?(?:several|some|a few|a couple of|many|two|three"
    r"|\d+|few|other|more)?\s*(?:known |remaining |open |outstanding |unresolved |pending )?"
    r"(?:issues?|problems?|limitations?|todos?|bugs?|gaps?|things|items|works?|tasks?)\b"
    r"(?: that)?(?: (?:still|yet))? (?:remains?|remaining|left|to (?:be )?(?:resolved|fixed|done"
    r"|addressed|solved|handled)|unresolved|not (?:yet )?(?:resolved|fixed|addressed|supported))"
    r"|\b(?:issues?|problems?|limitations?|todos?|bugs?|gaps?|work|tasks?)\s+(?:that\s+)?"
    r"(?:still\s+)?(?:remains?|remaining|left)\s+(?:to be|unresolved|open|to (?:resolve|fix|do"
    r"|address))"
    r"|\bremains? to be (?:resolved|fixed|done|addressed|solved|implemented|supported"
    r"|optimi[sz]ed|investigated)"
    r"|\b(?:known|remaining|open|outstanding|unresolved) (?:issues?|problems?|limitations?"
    r"|todos?)\s*[:：])"
)

# what a change says is temporary or comes after it, in its own words
# how it was tested may call for more ("Further testing should be done"); nothing else there
_FURTHER = (
    r"\b(?:further|more|additional) (?:testing|tests|validation|verification|benchmark\w*"
    r"|optimi[sz]ations?|work) (?:should|will|is|are|needs?|must)\b"
)
_NEXT_STEP = re.compile(
    r"(?i)\bwill be (?:discard\w*|removed|dropped|reverted|deleted|cleaned up|replaced|deprecated"
    r"|lifted|re-?enabled|re-?landed|turned back on)\b[^.]{0,100}?\b(?:after|once|when|until"
    r"|in (?:a|the) (?:future|follow|next|later|separate|subsequent))"
    # "temporarily", and "temporary" of a stopgap only: a temporary tensor, copy or cache is none
    r"|\btemporarily\b(?!\s+(?:increas|all-?gather|gather|stor|hold|allocat|cach|occup|sav|buffer"
    r"|cop(?:y|ies)|swap|offload)\w*)|\b(?:is|as|a|this|the) temporary (?:workaround|work-around|fix|solution|plan"
    r"|measure|hack|patch|change|disable|skip|exclude|exclusion|compatibility|monkeypatch|stopgap)\b"
    r"|\b(?:work-?around|stop-?gap)\b[^.]{0,80}?\buntil\b"
    r"|\buntil\b[^.]{0,60}\b(?:is|are|gets?|get|has been|have been) (?:fixed|resolved|released"
    r"|merged|supported|landed|available)\b"
    r"|\b(?:the )?next steps? (?:is|are|will|would)\b|\bnext steps?\s*:"
    r"|\bin (?:a|the|another) (?:follow[- ]?up|future|later|separate|subsequent|next) (?:pr|patch"
    r"|change|commit)s?\b|\bfollow[- ]?up (?:prs?|patch(?:es)?|work) will\b"
    r"|\b(?:1st|2nd|3rd|\d+th|first|second|third|fourth|fifth|last) (?:pr|part|step|patch)"
    r" (?:of|for|in)\b"
    r"|\b(?:currently|for now,?) (?:excludes?|skips?|disables?|ignores?)\b"
    r"|\btodo\s*:\s*\S+(?:\s+\S+){2}"
    # what is left to do later, or apart from this change: "A dedicated E2E test can be added
    # separately", "Performance improvement will be considered in the near future" (real #9363,
    # #10977)
    r"|\b(?:will|can|could|should|may|might|would|needs? to|(?:is|are) going to) be (?:\w+ )?"
    r"(?:added|done|handled|addressed|implemented|supported|fixed|submitted|provided|introduced"
    r"|enabled|optimi[sz]ed|considered|investigated|followed up|covered|tested|improved|refined"
    r"|cleaned up|updated|completed|extended|migrated|refactored|removed|moved|integrated|adapted"
    r"|verified|evaluated)(?: \w+){0,3}? (?:separately|later|afterwards|subsequently"
    r"|in (?:a|the|another) (?:follow[- ]?up|future|later|separate|subsequent|next)\b"
    r"|in (?:the )?(?:near |coming )?future|in (?:a few|the coming|the next|coming|upcoming|next)"
    r" (?:days|weeks|months|releases?|versions?|prs?))"
    # a stopgap kept: "keep the three-way fallback until AscendConfig init timing is moved
    # earlier" (real #11310)
    r"|\bkeep(?:s|ing)?\b[^.]{0,60}?\buntil\b"
    # what this change leaves as it was, admitted: "The `schedule()` body is still reproduced
    # verbatim" (real #11310), "… is still not supported yet"
    r"|\b(?:is|are) still (?:reproduced|copied|duplicated|hard-?coded|vendored|monkey-?patched"
    r"|unsupported|not (?:yet )?(?:supported|implemented|covered|fixed|resolved|handled)|pending"
    r"|blocked)\b"
    r"|" + OPEN_WORK.pattern.removeprefix("(?i)") + r"|" + _FURTHER
)
_FURTHER_ONLY = re.compile("(?i)" + _FURTHER)
# a step that is done now, or a stopgap ended, not announced: "this PR removes the workaround",
# "the bug that previously required the test to be temporarily skipped has been fixed"
_DONE_NOW = re.compile(
    r"(?i)\b(?:remov\w*|revert\w*|drop\w*|delet\w*|clean\w* up|lift\w*|get rid of|restor\w*)\s+"
    r"(?:the\s+|a\s+|this\s+|that\s+)?(?:\w+\s+){0,2}?(?:temporary|workaround|work-around|hack"
    r"|stop-?gap)|\bpreviously\b|\bhas been fixed\b|\bno longer\b|^\W*no\b"
    # a stopgap of before ("It was a temporary solution", "Before we add the patches temporarily")
    r"|\b(?:was|were|had been)\s+(?:a\s+|an\s+)?(?:\w+\s+)?temporar\w*|^\W*before\b"
    # the interim before this change, for those who cannot wait for it: "Workaround until this
    # lands: `--no-scheduler-reserve-full-isl`" (real #9548) — nothing is left once it is in
    r"|\buntil this (?:(?:pr|patch|change|fix|commit) )?(?:lands|is merged|merges|gets merged"
    r"|is landed|is in)\b"
)
# a sentence that runs on without its full stop ("… performance This will be discarded …", a
# line break where the stop should be): the step's clause starts at the capital
_RUN_ON = re.compile(r"(?<=[a-z0-9)])\s+(?=(?:This|It|These|That|We|The|Next|TODO)\b)")
# a clause joined on to the one before it: "… of `FULL_AND_PIECEWISE` and " (then the admission)
_JOINED = re.compile(r"(?i)\S\s*(?:[,;]\s*|\s)(?:and|but|while|though|although|yet)\s+$")
_TRAILING_URL = re.compile(r"(?:\s+\(?<?https?://\S+)+\s*$")


def _step_clause(s: str, at: int) -> str:
    """`s` from the run-on clause holding position `at` on, without links at its end."""
    start = 0
    for m in _RUN_ON.finditer(s, 0, at):
        start = m.end()
    return _TRAILING_URL.sub("", s[start:]).strip()


def next_steps_of(
    sections: Iterable[_SectionLike],
    sentences: Callable[[str], list[str]],
    clip: Callable[[str], str],
) -> tuple[str, ...]:
    """The sentences that say the change is temporary or announce what comes next, in the
    body's order, at most MAX_STEPS; none from how it was tested except a call for more."""
    out: list[str] = []
    for sec in sections:
        rx = _FURTHER_ONLY if sec.kind == "test" else _NEXT_STEP
        for i, u in enumerate(sec.units):
            text = u.text
            if not rx.search(text):
                continue
            for s in sentences(text):
                m = rx.search(s)
                if m is None or _DONE_NOW.search(s):
                    continue
                s = _step_clause(s, m.start())
                o = OPEN_WORK.search(s)
                if o is not None:
                    # the admission's own clause ("… FULL_AND_PIECEWISE and there are several
                    # issues remain to be resolved:"), with the first open item when a list
                    # follows it
                    if _JOINED.search(s, 0, o.start()):
                        s = s[o.start() :]
                    nxt = sec.units[i + 1] if i + 1 < len(sec.units) else None
                    if s.endswith((":", "：")):
                        if (
                            nxt is not None
                            and getattr(nxt, "kind", "") == "li"
                            and nxt.text.strip()
                        ):
                            s = f"{s} {nxt.text.strip()}"
                        elif len(s.split()) <= 3:
                            continue  # "Known issues：" over nothing the digest reads
                s = clip(s)
                if s not in out:
                    out.append(s)
                if len(out) >= MAX_STEPS:
                    return tuple(out)
    return tuple(out)


# ---------------------------------------------------------------- a new default

# the sentence that says this change gives something a new default — a mode, a feature, a value
# users get unless they set otherwise: "the default graph mode is changed to `FULL_AND_PIECEWISE`",
# "async-scheduling is now enabled by default", "This PR enables hierarchical MC2 operations on
# A2 by default", "Change the default value of mega_moe_max_tokens from 65536 to 131072" (real
# #9572, #9567, #5545, #11584): this change's doing, said now
_BY_THIS = (
    r"^\W*(?:yes\W+)?(?:(?:this|the) (?:pr|patch|change|commit|pull request)\s+|we\s+|it\s+"
    r"|let's\s+)?(?:(?:also|mainly|now|aims? to|will|is to)\s+)?"
)
_NEW_DEFAULT = re.compile(
    r"(?i)" + _BY_THIS + r"(?:chang|switch|flip|updat|set|rais|lower|increas|decreas|modif)\w*\s+"
    r"(?:the\s+)?(?:[\w.-]+\s+){0,3}?defaults?\b"
    r"|" + _BY_THIS + r"(?:enabl|disabl|turn\w* (?:on|off)|us)\w*\s+[^.]{1,60}?\s+by default\b"
    r"|\b(?:is|are) now (?:enabled|disabled|on|off|used|turned on|turned off|the default)\b"
    r"|\bnow (?:enabled|disabled|on|off) by default\b|\bby default now\b|\bnow defaults? to\b"
    r"|\bdefault\s+(?:[\w-]+\s+){0,3}(?:is|are|has been|have been)\s+(?:now\s+)?(?:changed|switched"
    r"|set|updated|flipped|raised|lowered)\s+(?:to|from)\b"
    r"|\bchang(?:es|ed|ing)? the default\b"
)
# ... not a default said not to change, nor one to come, one of before or of another project
_NOT_NEW_DEFAULT = re.compile(
    r"(?i)\b(?:no|not|never|nor|unchanged|remains?|without|n't)\b|\b(?:will|would|could|should"
    r"|may|might|plan\w*|once|after which|in the future|later|previously|earlier|since|currently"
    r"|already|for (?:a )?long time)\b|\bfor (?:the )?(?:e2e |unit )?tests?\b"
)
# another project's or change's doing, said before the new default: "vllm enables async
# scheduling by default", "#5790 changes default addrmsnormBias operator"
_OTHER_SIDE = re.compile(r"(?i)#\d|\bupstream\b|https?://|\bvllm\b(?![- ]ascend)")


def default_change_of(
    sections: Iterable[_SectionLike],
    user_facing: str,
    sentences: Callable[[str], list[str]],
    clip: Callable[[str], str],
) -> str:
    """The sentence that says this change gives something a new default (the user-facing answer
    first, then what it does), "" for none; none when the answer says users see no change."""
    if user_facing == "no":
        return ""
    ordered = sorted(
        (s for s in sections if s.kind in ("uf", "what", "", "other")),
        key=lambda s: 0 if s.kind == "uf" else 1,
    )
    for sec in ordered:
        for u in sec.units:
            text = u.text
            if "default" not in text.lower():
                continue
            for s in sentences(text):
                m = _NEW_DEFAULT.search(s)
                if (
                    m is not None
                    and not _NOT_NEW_DEFAULT.search(s, 0, m.end())
                    and not _OTHER_SIDE.search(s, 0, m.start())
                ):
                    return clip(s)
    return ""
