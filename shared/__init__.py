"""Contracts and plumbing every repodigest service uses; nothing service-specific."""
