"""End-to-end tests in a real headless browser (Debian's chromium, driven by Playwright)."""
