// Draws series as a time chart with uPlot (served by the gateway at /explorer/vendor/ from the `uplot` package).

const COLOURS = ['#2f6fde', '#e0552b', '#2a9d58', '#9b4dca', '#d4a21b', '#1aa3b8', '#c2185b', '#6d4c41'];
let plot; // the uPlot instance on the page, destroyed before the next draw

/**
 * `series`: [{ label, times: epoch ms[], values: (number|null)[] }]. Records what it drew on the container
 * (data-points, data-last, data-min, data-max) for tests and for people reading the DOM.
 */
export function drawChart(container, series) {
  plot?.destroy();
  plot = undefined;
  container.replaceChildren();
  const points = series.reduce((n, s) => n + s.times.length, 0);
  const last = series.reduce((t, s) => Math.max(t, s.times.at(-1) ?? -Infinity), -Infinity);
  container.dataset.points = String(points);
  container.dataset.last = Number.isFinite(last) ? String(last) : '';
  const values = series.flatMap((s) => s.values).filter((v) => typeof v === 'number');
  container.dataset.min = values.length > 0 ? String(Math.min(...values)) : '';
  container.dataset.max = values.length > 0 ? String(Math.max(...values)) : '';
  // uPlot takes one x column shared by all series: the union of their times, with nulls where a series has none.
  const times = [...new Set(series.flatMap((s) => s.times))].sort((a, b) => a - b);
  const at = new Map(times.map((t, i) => [t, i]));
  const columns = series.map((s) => {
    const column = new Array(times.length).fill(null);
    s.times.forEach((t, i) => {
      column[at.get(t)] = s.values[i];
    });
    return column;
  });
  const options = {
    width: Math.max(320, container.clientWidth - 2),
    height: 380,
    scales: { x: { time: true } },
    series: [
      {},
      ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: true })),
    ],
  };
  plot = new globalThis.uPlot(options, [times.map((t) => t / 1000), ...columns], container);
}
