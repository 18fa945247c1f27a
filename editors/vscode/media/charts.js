// @ts-check
// Draws the panel's charts with Chart.js (media/vendor/chart.umd.js, copied
// from node_modules by `npm run compile`, with the date-fns adapter for the
// time axis). Chart.js thins and rotates category labels itself, draws
// dates on a time axis and runs without eval, so the panel's CSP needs
// nothing more than its own script source. Which chart a result gets is
// view.js's chartPlan; this file only draws it, in the theme's colours.

(function () {
  const ChartJS = /** @type {any} */ (window).Chart;
  const V = /** @type {any} */ (window).aiqView;

  /** The editor's locale: chatHtml sets it as the document's language. */
  const locale = document.documentElement.lang || navigator.language || "en";
  const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const compact = new Intl.NumberFormat(locale, { notation: "compact", maximumFractionDigits: 1 });
  /** Long category labels are cut on the axis; the tooltip has them whole. */
  const LABEL_CHARS = 18;

  /** @param {string} s @param {number} n */
  function shorten(s, n) {
    return s.length <= n ? s : s.slice(0, n - 1) + "…";
  }

  /** @param {number} v */
  function tick(v) {
    return Math.abs(v) >= 10000 ? compact.format(v) : plain.format(v);
  }

  /** The theme's colours, read from VS Code's CSS variables at draw time. */
  function theme() {
    const css = getComputedStyle(document.body);
    const v = (/** @type {string} */ name, /** @type {string} */ fallback) => css.getPropertyValue(name).trim() || fallback;
    const series = [];
    for (let i = 1; i <= 8; i++) series.push(v(`--aiq-chart-${i}`, "#3794ff"));
    return {
      fg: v("--vscode-foreground", "#616161"),
      muted: v("--vscode-descriptionForeground", "#717171"),
      grid: v("--aiq-grid", "rgba(128, 128, 128, 0.28)"),
      bg: v("--vscode-editor-background", "#ffffff"),
      tooltipBg: v("--vscode-editorHoverWidget-background", v("--vscode-editorWidget-background", "#252526")),
      tooltipFg: v("--vscode-editorHoverWidget-foreground", v("--vscode-foreground", "#cccccc")),
      tooltipBorder: v("--vscode-editorHoverWidget-border", v("--vscode-widget-border", "#454545")),
      font: v("--vscode-font-family", "sans-serif"),
      series,
    };
  }

  /**
   * The Chart.js configuration of a plan, in colours t.
   * @param {any} plan view.js's chartPlan @param {ReturnType<typeof theme>} t
   */
  function config(plan, t) {
    const font = { family: t.font, size: 11 };
    const tooltip = {
      backgroundColor: t.tooltipBg,
      titleColor: t.tooltipFg,
      bodyColor: t.tooltipFg,
      borderColor: t.tooltipBorder,
      borderWidth: 1,
      callbacks: {},
    };
    /** @type {any} */
    const options = {
      locale,
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: t.fg,
      font,
      plugins: { legend: { display: false }, tooltip },
    };
    if (plan.kind === "pie") {
      /** @type {number[]} */
      const values = plan.values;
      const total = values.reduce((a, b) => a + b, 0);
      options.plugins.legend = {
        display: true,
        position: "right",
        labels: {
          color: t.fg,
          font,
          boxWidth: 10,
          // The legend's line is cut; the tooltip has the whole label.
          generateLabels: (/** @type {any} */ chart) =>
            ChartJS.overrides.pie.plugins.legend.labels.generateLabels(chart).map((/** @type {any} */ l) => ({ ...l, text: shorten(String(l.text), 22) })),
        },
      };
      tooltip.callbacks = { label: (/** @type {any} */ c) => ` ${plain.format(c.raw)} (${Math.round((c.raw / total) * 100)}%)` };
      return {
        type: "pie",
        data: { labels: plan.labels, datasets: [{ data: plan.values, backgroundColor: values.map((_, i) => t.series[i % t.series.length]), borderColor: t.bg, borderWidth: 1.5 }] },
        options,
      };
    }
    const y = {
      beginAtZero: plan.kind === "bar",
      grid: { color: t.grid },
      border: { color: t.muted },
      ticks: { color: t.muted, font, callback: (/** @type {number} */ v) => tick(v) },
      title: { display: true, text: plan.y, color: t.muted, font: { ...font, size: 10, style: "italic" } },
    };
    /** @type {any} */
    const x = {
      grid: { display: plan.kind === "scatter", color: t.grid },
      border: { color: t.muted },
      ticks: { color: t.muted, font, autoSkip: true, autoSkipPadding: 8, maxRotation: 45 },
      title: { display: true, text: plan.x, color: t.muted, font: { ...font, size: 10, style: "italic" } },
    };
    tooltip.callbacks = { label: (/** @type {any} */ c) => ` ${plain.format(c.parsed.y)}` };
    if (plan.kind === "scatter") {
      x.type = "linear";
      x.ticks.callback = (/** @type {number} */ v) => tick(v);
      tooltip.callbacks = { label: (/** @type {any} */ c) => ` ${plain.format(c.parsed.x)}, ${plain.format(c.parsed.y)}` };
    } else if (plan.time) {
      x.type = "time";
      x.time = { tooltipFormat: plan.time === "day" ? "PP" : "PPp", minUnit: plan.time === "day" ? "day" : "minute" };
      x.ticks.maxRotation = 0;
      x.ticks.source = "auto";
    } else {
      // A cut label; Chart.js skips those that would still overlap and turns the rest up to 45°.
      x.ticks.callback = function (/** @type {number} */ value) {
        return shorten(String(/** @type {any} */ (this).getLabelForValue(value)), LABEL_CHARS);
      };
    }
    options.scales = { x, y };
    const colour = t.series[0];
    const data =
      plan.kind === "scatter" ? plan.points : plan.time ? plan.labels.map((/** @type {string} */ l, /** @type {number} */ i) => ({ x: plan.times[i], y: plan.values[i] })) : plan.values;
    const dataset =
      plan.kind === "bar"
        ? { data, backgroundColor: colour, borderRadius: 2 }
        : { data, borderColor: colour, backgroundColor: colour, pointRadius: plan.values && plan.values.length > 60 ? 0 : 2.5, pointHoverRadius: 4, borderWidth: 2 };
    return { type: plan.kind, data: { labels: plan.time ? undefined : plan.labels, datasets: [dataset] }, options };
  }

  /**
   * A figure with the chart drawn into it; Chart.js sizes it to its box and
   * redraws it when the panel is resized.
   * @param {any} chart the chart event's or chooseChart's chart @param {HTMLElement} fig its figure
   */
  function draw(chart, fig) {
    const plan = V.chartPlan(chart);
    const box = document.createElement("div");
    box.className = `chart-box chart-box-${plan.kind}`;
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", chart.title || `${chart.y} by ${chart.x}`);
    box.append(canvas);
    fig.append(box);
    fig.classList.add(`chart-${plan.kind}`);
    new ChartJS(canvas, config(plan, theme()));
    return box;
  }

  /** Every chart into the theme's new colours when VS Code changes the theme (body's class). */
  function retheme() {
    const t = theme();
    for (const c of Object.values(ChartJS.instances)) {
      const chart = /** @type {any} */ (c);
      if (!chart.canvas || !chart.canvas.isConnected) {
        chart.destroy(); // a figure the panel dropped
        continue;
      }
      const next = config(V.chartPlan(chart.$aiqChart), t);
      chart.options = next.options;
      chart.data.datasets[0] = { ...chart.data.datasets[0], ...next.data.datasets[0], data: chart.data.datasets[0].data };
      chart.update("none");
    }
  }

  /** @param {any} chart @param {HTMLElement} fig */
  function drawKept(chart, fig) {
    const box = draw(chart, fig);
    const instance = ChartJS.getChart(box.querySelector("canvas"));
    if (instance) instance.$aiqChart = chart;
    return box;
  }

  new MutationObserver(retheme).observe(document.body, { attributes: true, attributeFilter: ["class"] });

  /** @type {any} */ (window).aiqCharts = { draw: drawKept };
})();
