// perimeter console: a running scan's progress, polled from the same origin (status.json) once a
// second until the scan ends. The page shows the figures of its load without this script; this
// only keeps them current: the bar, the percentage (never lower than one shown before), the time
// left, the counters, the warnings, and which of start and stop is offered.

const panel = document.querySelector('#scan-live[data-status-url]');
if (panel) {
  const url = panel.dataset.statusUrl;
  const one = (selector) => panel.querySelector(selector);
  let shown = Number(one('#scan-progress')?.value ?? 0);
  // A time as the page writes it: `2026-11-28 17:04 UTC`.
  const timeText = (iso) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

  const show = (scan) => {
    const status = one('[data-scan-status]');
    if (status) {
      status.textContent = scan.status_label;
      status.className = `status status-scan-${scan.status}`;
    }
    const bar = one('#scan-progress');
    if (bar) {
      // Never backwards, even when an older answer arrives late.
      shown = Math.max(shown, scan.percentage);
      bar.value = shown;
      bar.textContent = `${shown}%`;
      one('[data-scan-percentage]').textContent = `${shown}%`;
      one('[data-scan-eta]').textContent = scan.eta;
    }
    for (const [name, value] of Object.entries(scan.progress)) {
      const cell = one(`[data-counter="${name}"]`);
      if (cell) cell.textContent = String(value);
    }
    const list = one('[data-scan-warnings]');
    if (list && list.children.length !== scan.warnings.length) {
      list.replaceChildren(
        ...scan.warnings.map((w) => {
          const item = document.createElement('li');
          item.textContent = w;
          return item;
        }),
      );
      one('[data-scan-warnings-box]').hidden = scan.warnings.length === 0;
    }
    const started = one('[data-scan-started]');
    if (started && scan.started && started.dataset.at !== scan.started) {
      started.dataset.at = scan.started;
      started.textContent = timeText(scan.started);
    }
    const start = one('[data-scan-start]');
    const stop = one('[data-scan-stop]');
    if (start) start.hidden = scan.live;
    if (stop) stop.hidden = !scan.live;
    const heading = one('[data-scan-heading]');
    if (heading) heading.textContent = scan.live ? 'Running scan' : 'Latest scan';
    if (!scan.live && scan.report_url) {
      const ended = one('[data-scan-ended]');
      if (ended && scan.ended) ended.textContent = timeText(scan.ended);
      if (!one('[data-scan-report]')) {
        const note = document.createElement('p');
        note.dataset.scanReport = '';
        const link = document.createElement('a');
        link.href = scan.report_url;
        link.textContent = 'What this scan found';
        note.append(link);
        (start ?? stop)?.parentElement?.before(note);
        if (!start && !stop) panel.append(note);
      }
    }
  };

  const poll = async () => {
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      // Signed out, or the profile is gone: stop; the page still works on a reload.
      if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
      const scan = await res.json();
      if (scan.status === 'none') return;
      show(scan);
      panel.dataset.live = String(scan.live);
      if (!scan.live) return;
    } catch {
      // A network hiccup: try again at the next tick.
    }
    setTimeout(poll, 1000);
  };
  if (panel.dataset.live === 'true') setTimeout(poll, 500);
}
