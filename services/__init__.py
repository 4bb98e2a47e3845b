"""The four repodigest services; each folder is one service."""
