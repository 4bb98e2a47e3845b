"""The rule engine: profile models (validated YAML), compilation, and `classify(item) -> Tags`.

A profile is a declarative rule set for some repositories: modules, risks, ecosystems,
categories, topics, affiliations, bots. Profiles may `extends:` another; the resolved content (and the
CODEOWNERS text it uses) is hashed into the rule-set version that travels with every tag.
Every tag carries the id of the rule that fired, `<section>:<name>/<how>`, for example
`module:rocm/title-prefix` or `risk:core-without-tests/files`.

Pure: no file or network I/O and no clock; the adapter reads the YAML and CODEOWNERS files.

The public names, from the modules that hold them by responsibility: `profile_errors` (errors
a person can act on, with the YAML line), `profile` (the validated YAML models, `extends:`, the
rule-set version), `tokens` (titles and text into tokens), `indexes` (what a rule set looks
items up in, and one compiled match rule), `ruleset` (compilation and classification) and
`registry` (which profile classifies a repository).
"""

from __future__ import annotations

from .indexes import (
    CompiledMatch,
    FileFacts,
    Fired,
    ItemView,
    PhraseIndex,
    SignalIndex,
)
from .profile import (
    DEFAULT_PROFILE,
    ENGINE_VERSION,
    PROFILE_ALIASES,
    AffiliationRule,
    BotRules,
    CodeownersSpec,
    FallbackSpec,
    MatchSpec,
    ModuleRule,
    NamedRule,
    Profile,
    RiskRule,
    TestsSpec,
    TopicRule,
    canonical_profile,
    merge_raw,
    resolve_profile,
    ruleset_version,
    validate_profile,
)
from .profile_errors import (
    LocatedMapping,
    ProfileError,
    error_line,
)
from .registry import (
    ProfileRegistry,
    build_registry,
)
from .ruleset import (
    CompiledRuleSet,
    classify,
    compile_profile,
    fired_rules,
    trusted,
)
from .tokens import (
    Lead,
    norm_token,
    title_lead,
    title_tokens,
    words,
)

__all__ = [
    "AffiliationRule",
    "BotRules",
    "CodeownersSpec",
    "CompiledMatch",
    "CompiledRuleSet",
    "DEFAULT_PROFILE",
    "ENGINE_VERSION",
    "FallbackSpec",
    "FileFacts",
    "Fired",
    "ItemView",
    "Lead",
    "LocatedMapping",
    "MatchSpec",
    "ModuleRule",
    "NamedRule",
    "PROFILE_ALIASES",
    "PhraseIndex",
    "Profile",
    "ProfileError",
    "ProfileRegistry",
    "RiskRule",
    "SignalIndex",
    "TestsSpec",
    "TopicRule",
    "build_registry",
    "canonical_profile",
    "classify",
    "compile_profile",
    "error_line",
    "fired_rules",
    "merge_raw",
    "norm_token",
    "resolve_profile",
    "ruleset_version",
    "title_lead",
    "title_tokens",
    "trusted",
    "validate_profile",
    "words",
]
