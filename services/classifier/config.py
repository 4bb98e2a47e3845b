"""Classifier settings: where rule profiles come from, which repository uses which, CODEOWNERS."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from shared.config import CommonSettings


class ClassifierSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the classifier.

    Dictionaries are JSON: `REPODIGEST_PROFILE_OVERRIDES='{"owner/name": "llm-serving"}'`,
    `REPODIGEST_CODEOWNERS='{"llm-serving": "/etc/repodigest/vllm.CODEOWNERS"}'`.
    """

    profiles_dir: Path | None = Field(
        None,
        description="extra profile YAML files (NAME.yaml); a name here replaces the built-in one",
    )
    profile_overrides: dict[str, str] = Field(
        default_factory=dict,
        description="repository (OWNER/NAME) -> profile name, before the profiles' own `repos` globs",
    )
    codeowners_path: Path | None = Field(
        None, description="a CODEOWNERS file whose areas every profile may use as modules"
    )
    codeowners: dict[str, Path] = Field(
        default_factory=dict,
        description="profile name -> CODEOWNERS file (wins over codeowners_path)",
    )
    identities: Path | None = Field(
        None,
        description="identities file (YAML): logins, commit names and e-mails of one person, "
        "and their affiliations by date (README, Identities)",
    )

    def codeowners_files(self) -> dict[str, Path]:
        files = dict(self.codeowners)
        if self.codeowners_path is not None:
            files.setdefault("*", self.codeowners_path)
        return files
