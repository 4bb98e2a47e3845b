"""The notifier: each report-ready's digest (lead, the five counts, top storylines, links) posted
to Slack, Discord and Teams webhooks, e-mail and GitHub comments, once per revision and route.

Public entry points (for the CLI and deployments):
    services.notifier.app.build_service(settings, runtime, sender=None, state=None) -> NotifierService
    services.notifier.config.NotifierSettings       (REPODIGEST_NOTIFIER_*, GITHUB_TOKEN, S3_*)
    services.notifier.handlers.notify_report(delivery, routes, *, state, sender, ...) -> Outcome
"""
