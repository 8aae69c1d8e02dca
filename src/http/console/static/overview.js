// perimeter console, the overview's chart: new and fixed findings per day, drawn with uPlot
// (uplot.iife.js, a classic script that runs before this module) from the JSON the page embeds in
// #activity-data. The table under the chart holds the same numbers: the page says everything
// without this script. uPlot styles its elements through the CSSOM (el.style), which the CSP's
// style-src 'self' allows; it writes no style attribute or <style> element.

const holder = document.querySelector('[data-chart="activity"]');
const source = document.getElementById('activity-data');
const uPlot = window.uPlot;

/** A CSS custom property of the page (the console's palette), or a fallback. */
function colour(name, fallback) {
  return window.getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function draw() {
  const data = JSON.parse(source.textContent);
  const days = data.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const height = 240;
  const widthOf = () => Math.max(240, holder.clientWidth);
  const axis = {
    stroke: colour('--muted', '#57606a'),
    grid: { stroke: '#e6e9ed', width: 1 },
    ticks: { stroke: '#d0d7de', width: 1 },
  };
  // Two bars per day, side by side: new left of the day's tick, fixed right of it.
  const bars = (align) => uPlot.paths.bars({ size: [0.42, 18], align });
  const plot = new uPlot(
    {
      width: widthOf(),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      // Days are UTC days: the axis shows them so, whatever the browser's time zone.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: {
        x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
        y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
      },
      axes: [
        { ...axis, space: 60 },
        { ...axis, size: 44, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000] },
      ],
      series: [
        {},
        {
          label: 'New',
          stroke: colour('--high', '#b42318'),
          fill: colour('--high', '#b42318'),
          paths: bars(-1),
          points: { show: false },
        },
        {
          label: 'Fixed',
          stroke: colour('--ok', '#146c2e'),
          fill: colour('--ok', '#146c2e'),
          paths: bars(1),
          points: { show: false },
        },
      ],
    },
    [days, data.created, data.fixed],
    holder,
  );
  window.addEventListener('resize', () => plot.setSize({ width: widthOf(), height }));
  holder.dataset.drawn = 'true';
}

if (holder !== null && source !== null && uPlot !== undefined) draw();
