(() => {
  'use strict';
  // The rows come in chunks (each parsed, then dropped from the DOM so its text can go), the
  // totals after them. Only the page's own markup is built here: every text goes in as text,
  // and `html` is Markdown that twinwire rendered safely.
  const summary = JSON.parse(document.getElementById('summary').textContent);
  const rows = [];
  for (const chunk of Array.from(document.querySelectorAll('script.rows'))) {
    for (const r of JSON.parse(chunk.textContent)) rows.push(r);
    chunk.remove();
  }
  const PAGE = 500;
  const MAX_FILTERS = 40;
  const conversation = summary.layout === 'conversation';
  document.body.classList.add(conversation ? 'conversation' : 'frames');
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const money = usd => `$${usd.toFixed(4)}`;

  // The header: title, summary, where it ran, totals.
  const session = summary.session;
  document.getElementById('title').textContent = summary.title;
  document.title = `${summary.title} · twinwire view`;
  if (session) {
    document.getElementById('subtitle').textContent = session.summary;
    const about = [session.id, session.cwd, session.branch && `branch ${session.branch}`,
      session.models.join(', '), session.version && `Claude Code ${session.version}`,
      session.tag && `tag ${session.tag}`].filter(Boolean);
    document.getElementById('about').textContent = about.join(' · ');
  }
  const t = summary.totals;
  const cost = t.usd === undefined ? 'cost unknown' : money(t.usd);
  const basis = t.cost_basis ? ` (${t.cost_basis})` : '';
  const unpriced = t.unpriced ? ` + ${plural(t.unpriced, 'response')} of models without a list price` : '';
  const odd = t.odd ? ` · ${plural(t.odd, 'odd line')}` : '';
  document.getElementById('totals').textContent =
    `${t.rows} rows · ${plural(t.turns, 'turn')} · ${cost}${basis}${unpriced} · ` +
    `${t.input_tokens} in / ${t.output_tokens} out tokens · ${(t.duration_ms / 1000).toFixed(1)} s` +
    ` · ${t.allowed} allowed, ${t.denied} denied · ${t.malformed} malformed, ${t.unknown} unknown${odd}`;

  // What each turn cost: a result's cost, or the sum of a session's responses (estimated).
  const turns = new Map();
  for (const r of rows) {
    let turn = turns.get(r.turn);
    if (!turn) { turn = { usd: 0, priced: false, estimated: false, input: 0, output: 0, ms: 0, first: undefined, last: undefined }; turns.set(r.turn, turn); }
    // A turn's time runs from its first to its last row of the conversation (bookkeeping
    // the CLI writes later, such as a title, does not stretch it).
    if (r.t !== undefined && r.role !== 'bookkeeping') { if (turn.first === undefined) turn.first = r.t; turn.last = r.t; }
    const c = r.cost;
    if (!c) continue;
    if (c.usd !== undefined) { turn.usd += c.usd; turn.priced = true; }
    turn.estimated = turn.estimated || r.marks.includes('estimated');
    turn.input += c.input_tokens; turn.output += c.output_tokens; turn.ms += c.duration_ms;
  }
  function turnHeader(n) {
    const c = turns.get(n);
    const parts = [`Turn ${n}`];
    if (c && (c.priced || c.input || c.output)) {
      if (c.priced) parts.push(`${c.estimated ? '≈ ' : ''}${money(c.usd)}`);
      parts.push(`${c.input} in / ${c.output} out`);
    }
    const ms = c ? (c.ms || (c.first !== undefined ? (c.last - c.first) * 1000 : 0)) : 0;
    if (c && (c.ms || c.first !== undefined)) parts.push(`${(ms / 1000).toFixed(1)} s`);
    return el('div', 'turn', parts.join(' · '));
  }

  // Filters: by role in a conversation, by kind family for frames; bookkeeping starts folded.
  const family = r => conversation || r.role === 'odd' ? r.role : r.kind.split('/')[0];
  const counts = new Map();
  for (const r of rows) counts.set(family(r), (counts.get(family(r)) || 0) + 1);
  let families = [...counts.keys()].sort();
  if (families.length > MAX_FILTERS) {
    families = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_FILTERS - 1).map(e => e[0]).sort();
    families.push('other');
  }
  const known = new Set(families);
  const group = r => known.has(family(r)) ? family(r) : 'other';
  const shown = new Set(families.filter(f => !(conversation && f === 'bookkeeping')));
  const filters = document.getElementById('filters');
  for (const f of families) {
    const label = el('label'); const box = el('input'); box.type = 'checkbox';
    box.checked = shown.has(f); box.dataset.family = f;
    box.addEventListener('change', () => { box.checked ? shown.add(f) : shown.delete(f); draw(); });
    label.append(box, ` ${f} (${counts.get(f) ?? ''})`); filters.append(label);
  }
  const search = document.getElementById('search');
  let pending;
  search.addEventListener('input', () => { clearTimeout(pending); pending = setTimeout(draw, 120); });

  // One row, as a frame line or as part of the conversation.
  function details(r) {
    const d = el('details'); d.append(el('summary', null, 'JSON'));
    const pre = el('pre');
    d.addEventListener('toggle', () => {
      if (!d.open || pre.textContent) return;
      try { pre.textContent = JSON.stringify(JSON.parse(r.raw), null, 2); } catch (_) { pre.textContent = r.raw; }
    });
    d.append(pre);
    return d;
  }
  function lines(cls, list, more) {
    const pre = el('pre', cls);
    pre.textContent = list.join('\n');
    const out = [pre];
    if (more) out.push(el('div', 'more-lines', `… ${plural(more, 'more line')}`));
    return out;
  }
  function toolView(v) {
    const box = el('div', 'tool-view');
    const head = el('div');
    head.append(el('span', 'tool-name', `▸ ${v.name} `));
    if (v.shape === 'command') head.append(el('code', 'tool-head', `$ ${v.head}`));
    else if (v.shape === 'search') head.append(el('code', 'tool-head', `“${v.head}”`));
    else head.append(el('span', 'tool-head', v.head));
    box.append(head);
    if (v.note) box.append(el('div', 'tool-note', v.note));
    if (v.lines && v.lines.length) {
      if (v.shape === 'diff') {
        const pre = el('pre', 'diff');
        for (const l of v.lines) pre.append(el('span', l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx', l));
        box.append(pre);
        if (v.more) box.append(el('div', 'more-lines', `… ${plural(v.more, 'more line')}`));
      } else {
        box.append(...lines('tool-body', v.lines, v.more));
      }
    }
    return box;
  }
  function output(o) {
    const box = el('div', 'out');
    if (o.decision) box.append(el('span', 'decision', o.decision));
    box.append(...lines('out-lines', o.lines, o.more));
    return box;
  }
  function frameRow(r) {
    const row = el('div', ['row', 'dir-' + r.dir.replace(/[^a-z]/g, ''), ...r.marks].join(' '));
    row.dataset.kind = r.kind;
    const dir = { in: '→ CLI', out: '← CLI', entry: 'entry', meta: 'meta' }[r.dir] || '?';
    row.append(el('span', 't', r.t === undefined ? '' : '+' + r.t.toFixed(3)), el('span', 'd', dir), el('span', 'k', r.kind));
    const s = el('span', 's', r.summary);
    if (r.rtt_ms !== undefined) s.append(el('span', 'rtt', `${r.rtt_ms.toFixed(0)} ms`));
    row.append(s);
    const d = details(r);
    if (r.html) { const md = el('div', 'md'); md.innerHTML = r.html; d.insertBefore(md, d.lastChild); }
    for (const v of r.tools || []) d.insertBefore(toolView(v), d.lastChild);
    if (r.output) d.insertBefore(output(r.output), d.lastChild);
    row.append(d);
    return row;
  }
  function talkRow(r) {
    const row = el('div', ['row', r.role, ...r.marks].join(' '));
    row.dataset.kind = r.kind;
    if (r.t !== undefined) row.append(el('span', 'when', `+${r.t.toFixed(1)} s`));
    if (r.role === 'prompt') row.append(el('div', 'who', r.marks.includes('argv') ? 'Prompt (from the command line)' : 'Prompt'));
    if (r.html && (r.role === 'prompt' || r.role === 'answer' || r.role === 'tool' || r.role === 'note')) {
      const md = el('div', 'md'); md.innerHTML = r.html; row.append(md);
    } else if (!(r.tools && r.tools.length) && !r.output) {
      row.append(el('span', 's', r.summary));
    }
    for (const v of r.tools || []) row.append(toolView(v));
    if (r.output) row.append(output(r.output));
    const odd = r.marks.filter(m => m === 'malformed' || m === 'unknown' || m === 'odd');
    if (odd.length) row.append(el('span', 'marks', odd.join(' ')));
    row.append(details(r));
    return row;
  }
  const rowElement = conversation ? talkRow : frameRow;

  // What is shown: rows that pass the filters and the search, 500 at a time; in a
  // conversation each run of bookkeeping rows is one fold that opens in place.
  const list = document.getElementById('list');
  const more = document.getElementById('more');
  let items = [], drawn = 0, lastTurn = 0;
  function matches(r, q) {
    return !q || r.summary.toLowerCase().includes(q) || r.raw.toLowerCase().includes(q);
  }
  function select() {
    const q = search.value.toLowerCase();
    const folding = conversation && !shown.has('bookkeeping');
    const out = [];
    let fold = null;
    for (const r of rows) {
      if (!matches(r, q)) continue;
      if (folding && r.role === 'bookkeeping') {
        if (!fold) { fold = { fold: [] }; out.push(fold); }
        fold.fold.push(r);
        continue;
      }
      if (!shown.has(group(r))) continue;
      fold = null;
      out.push(r);
    }
    return out;
  }
  function foldElement(item) {
    const kinds = [...new Set(item.fold.map(r => r.kind))].slice(0, 6).join(', ');
    const n = item.fold.length;
    const button = el('button', 'fold', `⋯ ${n} bookkeeping ${n === 1 ? 'entry' : 'entries'} (${kinds})`);
    button.addEventListener('click', () => {
      const part = document.createDocumentFragment();
      for (const r of item.fold) part.append(rowElement(r));
      button.replaceWith(part);
    });
    return button;
  }
  function drawMore() {
    const end = Math.min(drawn + PAGE, items.length);
    const part = document.createDocumentFragment();
    for (; drawn < end; drawn++) {
      const item = items[drawn];
      const turn = item.fold ? item.fold[0].turn : item.turn;
      if (turn !== lastTurn) { lastTurn = turn; part.append(turnHeader(turn)); }
      part.append(item.fold ? foldElement(item) : rowElement(item));
    }
    list.append(part);
    more.hidden = drawn >= items.length;
    more.textContent = `Show more (${items.length - drawn} left)`;
  }
  function draw() {
    items = select();
    list.replaceChildren(); drawn = 0; lastTurn = 0; drawMore();
    // What the list shows now, for whoever waits for a search to apply.
    list.dataset.search = search.value;
  }
  more.addEventListener('click', drawMore);
  draw();
})();
