"""How the page is opened in a headless Chromium, by the viewer's tests and the screenshot
script alike: Debian's build, no sandbox (root in a container), no network of its own."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
