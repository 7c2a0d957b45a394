// Draws series as a time chart: with uPlot when the gateway serves it (/explorer/vendor/, from the `uplot` package),
// else with a small canvas renderer of our own, so the page works either way. One function, one shape of data.

const COLOURS = ['#2f6fde', '#e0552b', '#2a9d58', '#9b4dca', '#d4a21b', '#1aa3b8', '#c2185b', '#6d4c41'];
let plot; // the uPlot instance on the page, destroyed before the next draw

/**
 * `series`: [{ label, times: epoch ms[], values: (number|null)[] }]. Records what it drew on the container
 * (data-points, data-last, data-renderer) for tests and for people reading the DOM.
 */
export function drawChart(container, series) {
  plot?.destroy();
  plot = undefined;
  container.replaceChildren();
  const points = series.reduce((n, s) => n + s.times.length, 0);
  const last = series.reduce((t, s) => Math.max(t, s.times.at(-1) ?? -Infinity), -Infinity);
  container.dataset.points = String(points);
  container.dataset.last = Number.isFinite(last) ? String(last) : '';
  const width = Math.max(320, container.clientWidth - 2);
  if (globalThis.uPlot) {
    container.dataset.renderer = 'uPlot';
    drawWithUPlot(container, series, width);
  } else {
    container.dataset.renderer = 'canvas';
    drawOnCanvas(container, series, width, 380);
  }
}

function drawWithUPlot(container, series, width) {
  const times = [...new Set(series.flatMap((s) => s.times))].sort((a, b) => a - b);
  const at = new Map(times.map((t, i) => [t, i]));
  const columns = series.map((s) => {
    const column = new Array(times.length).fill(null);
    s.times.forEach((t, i) => (column[at.get(t)] = s.values[i]));
    return column;
  });
  const options = {
    width,
    height: 380,
    scales: { x: { time: true } },
    series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: true }))],
  };
  plot = new globalThis.uPlot(options, [times.map((t) => t / 1000), ...columns], container);
}

function drawOnCanvas(container, series, width, height) {
  const ratio = globalThis.devicePixelRatio || 1;
  const canvas = document.createElement('canvas');
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  container.append(canvas, legend(series));
  const g = canvas.getContext('2d');
  g.scale(ratio, ratio);
  g.font = '12px system-ui, sans-serif';
  const all = series.flatMap((s) => s.times.map((t, i) => [t, s.values[i]])).filter(([, v]) => v !== null && Number.isFinite(v));
  if (all.length === 0) {
    g.fillStyle = '#777';
    g.fillText('no points in this range', width / 2 - 60, height / 2);
    return;
  }
  let [t0, t1, v0, v1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const [t, v] of all) [t0, t1, v0, v1] = [Math.min(t0, t), Math.max(t1, t), Math.min(v0, v), Math.max(v1, v)];
  if (t0 === t1) [t0, t1] = [t0 - 1000, t1 + 1000];
  if (v0 === v1) [v0, v1] = [v0 - 1, v1 + 1];
  const pad = (v1 - v0) * 0.05;
  [v0, v1] = [v0 - pad, v1 + pad];
  const box = { left: 64, right: width - 16, top: 12, bottom: height - 28 };
  const x = (t) => box.left + ((t - t0) / (t1 - t0)) * (box.right - box.left);
  const y = (v) => box.bottom - ((v - v0) / (v1 - v0)) * (box.bottom - box.top);
  g.strokeStyle = '#e3e6eb';
  g.fillStyle = '#555';
  for (let k = 0; k <= 5; k++) {
    const v = v0 + ((v1 - v0) * k) / 5;
    g.beginPath();
    g.moveTo(box.left, y(v));
    g.lineTo(box.right, y(v));
    g.stroke();
    g.fillText(formatValue(v), 4, y(v) + 4);
    const t = t0 + ((t1 - t0) * k) / 5;
    g.fillText(new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), x(t) - 16, height - 8);
  }
  series.forEach((s, i) => {
    g.strokeStyle = COLOURS[i % COLOURS.length];
    g.lineWidth = 1.5;
    g.beginPath();
    let drawing = false;
    s.times.forEach((t, k) => {
      const v = s.values[k];
      if (v === null || !Number.isFinite(v)) return void (drawing = false);
      if (drawing) g.lineTo(x(t), y(v));
      else g.moveTo(x(t), y(v));
      drawing = true;
    });
    g.stroke();
  });
}

function legend(series) {
  const div = document.createElement('div');
  div.className = 'legend';
  series.forEach((s, i) => {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = COLOURS[i % COLOURS.length];
    item.append(swatch, s.label);
    div.append(item);
  });
  return div;
}

function formatValue(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return v.toFixed(a < 10 ? 2 : 1);
}
