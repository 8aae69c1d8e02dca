// perimeter console: a zone lookup's progress, polled from the same origin until the job ends.
// The page shows the figures of its load without this script; this only keeps them current.

const panel = document.querySelector('[data-lookup-status]');
if (panel) {
  const url = panel.dataset.lookupStatus;
  const field = (name) => panel.querySelector(`[data-field="${name}"]`);
  const words = { queued: 'Queued', running: 'Running', done: 'Done', failed: 'Failed' };
  const show = (job) => {
    const status = field('status');
    status.textContent = words[job.status] ?? job.status;
    status.className = `status job-${job.status}`;
    for (const name of ['total', 'succeeded', 'failed']) field(name).textContent = String(job[name]);
    // The bar never goes backwards, even if an answer arrives out of order.
    const bar = field('bar');
    const percent = Math.max(Number(bar.value) || 0, job.percent);
    bar.value = percent;
    bar.textContent = `${percent}%`;
    field('percent').textContent = `${percent}%`;
  };
  const finished = (job) => job.status === 'done' || job.status === 'failed';
  const poll = async () => {
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      // Signed out, or the job is gone: stop, the page's link still works.
      if (!res.ok) return;
      const job = await res.json();
      show(job);
      if (finished(job)) {
        field('note').textContent =
          job.status === 'done'
            ? 'The lookup has finished. Resolved names appear as subdomains of their root asset.'
            : 'The lookup failed. Upload the list again to retry.';
        return;
      }
    } catch {
      // A network hiccup: try again at the next tick.
    }
    setTimeout(poll, 1000);
  };
  if (field('status').textContent !== 'Done' && field('status').textContent !== 'Failed') setTimeout(poll, 500);
}
