"""The renderer: window summaries into Markdown, HTML (with charts), PDF and JSON, en and zh-CN.

Public entry points (for the CLI and deployments):
    services.renderer.app.build_service(settings, runtime, store=None) -> RendererService
    services.renderer.config.RendererSettings                 (REPODIGEST_ARTIFACTS_URL, S3_*, PDF_*)
    services.renderer.handlers.render_report(event, store, publish, pdf, now) -> ReportReady
    services.renderer.handlers.render_documents(summary, lang, formats, pdf) -> {format: bytes}
    services.renderer.adapters.stores.open_store(url, js, *, s3=None) -> ObjectStore
    services.renderer.adapters.stores.fetch_uri(uri, js, *, s3=None) -> bytes
    services.renderer.adapters.pdf.PdfRenderer(workers, timeout)   (start / render / close)
"""
