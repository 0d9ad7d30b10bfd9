"""tools/html/browser_check.py's reading of what headless Chromium gives back (the
dumped DOM and its log); loading a page needs Chromium, which sim-cli's html test
does."""
from tools.html import browser_check

LOG = ('[1129/051500.123456:INFO:CONSOLE(12)] "Uncaught ReferenceError: x is not defined", '
       'source: file:///tmp/page.html (12)\n'
       "[1129/051500.2:WARNING:gpu_init.cc(523)] Passthrough is not supported\n")
DOM = ('<html><body class="r" data-shown="summary stalls"><section id="summary">a</section>'
       '<section id="stalls">b</section><section id="pipes"></section></body></html>')


def test_console_messages_are_failures():
    assert browser_check.console_errors(LOG) == [LOG.splitlines()[0]]
    assert browser_check.console_errors(LOG.splitlines()[1]) == []


def test_sections_present_and_laid_out():
    assert browser_check.check(DOM, "", ["summary", "stalls"]) == []
    assert browser_check.check(DOM, "", ["pipes"]) == [
        'section "pipes" is in the DOM but was not laid out (zero height)']
    assert browser_check.check(DOM, "", ["timeline"]) == ['section "timeline" is not in the DOM']


def test_page_that_did_not_load():
    assert browser_check.check("", LOG, ["summary"]) == [
        "console error: " + LOG.splitlines()[0],
        "the page did not load (no <body> in the dumped DOM)"]
    assert browser_check.check("<body><section id=\"x\"></section></body>", "", []) == [
        "the page's load script did not run (no data-shown on <body>)"]
