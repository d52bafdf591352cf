//! The page: one self-contained HTML file (inline CSS and script, no network), with the rows as
//! JSON in the page and a small script that lays them out, filters them and renders them 500 at
//! a time (a 100 MB recording stays usable: only what is shown is in the DOM). A content
//! security policy allows only the page's own script (by nonce) and nothing from outside, so
//! even text that slipped through as markup could not run or fetch anything.

use std::io::Write;

use super::rows::Row;

/// Writes the page for `rows`, titled `title`, to `out`: the rows go out as JSON one at a time,
/// so a large recording is never held as one string.
pub fn write(out: &mut impl std::io::Write, title: &str, rows: &[Row]) -> std::io::Result<()> {
    let nonce = uuid_like();
    let (head, tail) = TEMPLATE.split_once("{{DATA}}").unwrap_or((TEMPLATE, ""));
    let title_html = html_escape(title);
    out.write_all(
        head.replace("{{NONCE}}", &nonce)
            .replace("{{TITLE}}", &title_html)
            .as_bytes(),
    )?;
    let mut data = ScriptSafe(&mut *out);
    data.write_all(b"{\"title\":")?;
    serde_json::to_writer(&mut data, title)?;
    data.write_all(b",\"rows\":[")?;
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            data.write_all(b",")?;
        }
        serde_json::to_writer(&mut data, row)?;
    }
    data.write_all(b"]}")?;
    out.write_all(tail.replace("{{NONCE}}", &nonce).as_bytes())
}

/// JSON made safe inside a `<script>` element: only `</` could end it early, so every `<`
/// becomes `\u003c` (JSON strings and the page's script read it back as `<`).
struct ScriptSafe<W>(W);

impl<W: std::io::Write> std::io::Write for ScriptSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (i, byte) in bytes.iter().enumerate() {
            if *byte == b'<' {
                self.0.write_all(&bytes[start..i])?;
                self.0.write_all(b"\\u003c")?;
                start = i + 1;
            }
        }
        self.0.write_all(&bytes[start..])?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A fresh nonce for the page's script.
fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", nanos, std::process::id())
}

const TEMPLATE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{{NONCE}}'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}} · ccwire view</title>
<style>
  :root { --bg:#fbfbfa; --fg:#1f2328; --dim:#6e7781; --line:#e4e4e0; --in:#0969da; --out:#8250df;
          --allow:#1a7f37; --deny:#cf222e; --warn:#9a6700; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, sans-serif; background:var(--bg); color:var(--fg); }
  header { position:sticky; top:0; background:#fff; border-bottom:1px solid var(--line); padding:10px 16px; z-index:1; }
  h1 { font-size:16px; margin:0 0 6px; }
  #totals { color:var(--dim); margin-bottom:8px; }
  #filters label { margin-right:10px; white-space:nowrap; }
  #search { width:280px; padding:4px 6px; margin-right:12px; }
  main { padding:8px 16px 40px; }
  .turn { margin:14px 0 4px; font-weight:600; color:var(--dim); border-top:1px solid var(--line); padding-top:6px; }
  .row { display:grid; grid-template-columns:64px 62px 210px 1fr; gap:8px; padding:3px 4px; border-radius:4px; }
  .row:hover { background:#f0f0ec; }
  .t { color:var(--dim); font-variant-numeric:tabular-nums; text-align:right; }
  .dir-in .d { color:var(--in); } .dir-out .d { color:var(--out); } .dir-entry .d { color:var(--dim); }
  .k { font-family:ui-monospace, monospace; font-size:12px; color:var(--dim); overflow:hidden; text-overflow:ellipsis; }
  .s { overflow-wrap:anywhere; }
  .allow { background:#dafbe1; } .deny { background:#ffebe9; }
  .error .s { color:var(--deny); } .malformed, .unknown { outline:2px dashed var(--warn); }
  .rtt { color:var(--dim); font-size:12px; margin-left:6px; }
  details { grid-column:4; margin:2px 0 6px; }
  details pre { background:#f6f8fa; padding:8px; overflow:auto; max-height:320px; font-size:12px; }
  .md { background:#fff; border-left:3px solid var(--out); padding:2px 10px; }
  #more { margin:12px 0; }
</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div id="totals"></div>
  <div id="filters"><input id="search" type="search" placeholder="Search text" aria-label="Search"></div>
</header>
<main id="list"></main>
<button id="more" hidden>Show more</button>
<script type="application/json" id="data">{{DATA}}</script>
<script nonce="{{NONCE}}">
(() => {
  const data = JSON.parse(document.getElementById('data').textContent);
  const rows = data.rows;
  const PAGE = 500;
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  document.getElementById('title').textContent = data.title;
  // Totals: turns, cost, tokens, time, what could not be read.
  const results = rows.filter(r => r.cost);
  const sum = f => results.reduce((a, r) => a + r.cost[f], 0);
  const marked = m => rows.filter(r => r.marks.includes(m)).length;
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  document.getElementById('totals').textContent =
    `${rows.length} frames · ${plural(new Set(rows.map(r => r.turn)).size, 'turn')} · $${sum('usd').toFixed(4)} · ` +
    `${sum('input_tokens')} in / ${sum('output_tokens')} out tokens · ${(sum('duration_ms') / 1000).toFixed(1)} s` +
    ` · ${marked('allow')} allowed, ${marked('deny')} denied · ${marked('malformed')} malformed, ${marked('unknown')} unknown`;
  // A filter per family of kinds.
  const family = r => r.kind.split('/')[0];
  const families = [...new Set(rows.map(family))].sort();
  const shown = new Set(families);
  const filters = document.getElementById('filters');
  for (const f of families) {
    const label = el('label'); const box = el('input'); box.type = 'checkbox'; box.checked = true; box.dataset.family = f;
    box.addEventListener('change', () => { box.checked ? shown.add(f) : shown.delete(f); draw(); });
    label.append(box, ' ' + f); filters.append(label);
  }
  const search = document.getElementById('search');
  search.addEventListener('input', () => draw());
  const list = document.getElementById('list');
  const more = document.getElementById('more');
  let matching = [], drawn = 0, lastTurn = 0;
  const turnCost = new Map(results.map(r => [r.turn, r.cost]));
  function rowElement(r) {
    const row = el('div', ['row', 'dir-' + r.dir, ...r.marks].join(' '));
    row.dataset.kind = r.kind;
    row.append(el('span', 't', r.t === undefined ? '' : '+' + r.t.toFixed(3)),
               el('span', 'd', r.dir === 'in' ? '→ CLI' : r.dir === 'out' ? '← CLI' : 'entry'),
               el('span', 'k', r.kind));
    const s = el('span', 's', r.summary);
    if (r.rtt_ms !== undefined) s.append(el('span', 'rtt', `${r.rtt_ms.toFixed(0)} ms`));
    row.append(s);
    const details = el('details'); details.append(el('summary', null, 'details'));
    if (r.html) { const md = el('div', 'md'); md.innerHTML = r.html; details.append(md); }
    details.append(el('pre', null, r.raw));
    row.append(details);
    return row;
  }
  function drawMore() {
    const end = Math.min(drawn + PAGE, matching.length);
    const part = document.createDocumentFragment();
    for (; drawn < end; drawn++) {
      const r = matching[drawn];
      if (r.turn !== lastTurn) {
        lastTurn = r.turn; const c = turnCost.get(r.turn);
        part.append(el('div', 'turn', `Turn ${r.turn}` + (c ? ` · $${c.usd.toFixed(4)} · ${c.input_tokens} in / ${c.output_tokens} out · ${(c.duration_ms / 1000).toFixed(1)} s` : '')));
      }
      part.append(rowElement(r));
    }
    list.append(part);
    more.hidden = drawn >= matching.length;
    more.textContent = `Show more (${matching.length - drawn} left)`;
  }
  function draw() {
    const q = search.value.toLowerCase();
    matching = rows.filter(r => shown.has(family(r)) && (!q || r.summary.toLowerCase().includes(q) || r.raw.toLowerCase().includes(q)));
    list.replaceChildren(); drawn = 0; lastTurn = 0; drawMore();
  }
  more.addEventListener('click', drawMore);
  draw();
})();
</script>
</body>
</html>
"##;
