"""A screenshot of `segment --format html`'s page, as README and docs show it.

    python scripts/screenshot_page.py -m en_joint_sbd docs/images/segment_input.txt -o docs/images/segment_html.png

Runs `segment` with `--format html` on the input, opens the page in a headless Chromium (Debian's
`chromium` and `chromium-driver`, driven by Selenium: the `screenshots` extra), optionally moves
the threshold slider (`--threshold`), opens the tree of one sentence (`--tree K`, the K-th shown,
from 1; 0 for none) and saves the window as PNG.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional


def make_page(model: str, text: Path, page: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", "-m", model, str(text),
                           "--format", "html", "--output", str(page), "--overwrite"], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stderr.strip() or f"segment exited with {proc.returncode}")


def screenshot(page: Path, out: Path, width: int, height: int, threshold: Optional[float], tree: int) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if browser is None or driver is None:
        sys.exit("needs chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    drv = webdriver.Chrome(options=options, service=Service(driver))
    try:
        drv.get(page.resolve().as_uri())
        if threshold is not None:
            drv.execute_script("const t = document.getElementById('thr'); t.value = arguments[0];"
                               "t.dispatchEvent(new Event('input'));", str(threshold))
        drv.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        if tree:
            sents = drv.find_elements("css selector", ".sent")
            if len(sents) < tree:
                sys.exit(f"--tree {tree}: the page shows {len(sents)} sentences")
            sents[tree - 1].click()
        out.parent.mkdir(parents=True, exist_ok=True)
        drv.save_screenshot(str(out))
    finally:
        drv.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("text", type=Path, help="the input text file")
    ap.add_argument("-m", "--model", default="en_joint_sbd", help="the pipeline (default en_joint_sbd)")
    ap.add_argument("-o", "--output", type=Path, default=Path("docs/images/segment_html.png"))
    ap.add_argument("--threshold", type=float, default=None, help="move the slider to this start probability")
    ap.add_argument("--tree", type=int, default=1, help="open the tree of the K-th sentence shown (0: none)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=760)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        make_page(args.model, args.text, page)
        screenshot(page, args.output, args.width, args.height, args.threshold, args.tree)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
