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
  const locale = supported(document.documentElement.lang) || supported(navigator.language) || "en";

  /** tag when Intl takes it (a tag it refuses would stop every chart), else "". @param {string} tag */
  function supported(tag) {
    try {
      return tag && Intl.NumberFormat.supportedLocalesOf([tag]).length ? tag : "";
    } catch {
      return "";
    }
  }
  const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const compact = new Intl.NumberFormat(locale, { notation: "compact", maximumFractionDigits: 1 });
  /** Long category labels are cut on the axis and in a legend; the tooltip has them whole. */
  const LABEL_CHARS = 18;
  const LEGEND_CHARS = 18;

  /** Where a pie's legend goes in a canvas this wide. @param {number} width */
  function legendSide(width) {
    return width < 360 ? "bottom" : "right";
  }

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
      bg: v("--aiq-bg", v("--vscode-editor-background", "#ffffff")),
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
  function config(plan, t, canvasWidth = 480) {
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
        position: legendSide(canvasWidth),
        labels: {
          color: t.fg,
          font,
          boxWidth: 10,
          // The legend's line is cut; the tooltip has the whole label.
          generateLabels: (/** @type {any} */ chart) =>
            ChartJS.overrides.pie.plugins.legend.labels.generateLabels(chart).map((/** @type {any} */ l) => ({ ...l, text: shorten(String(l.text), LEGEND_CHARS) })),
        },
      };
      tooltip.callbacks = { label: (/** @type {any} */ c) => ` ${plain.format(c.raw)} (${Math.round((c.raw / total) * 100)}%)` };
      // A narrow panel has no room beside the pie: the legend goes under it.
      options.onResize = (/** @type {any} */ chart, /** @type {{ width: number }} */ size) => {
        const side = legendSide(size.width);
        if (chart.options.plugins.legend.position !== side) {
          chart.options.plugins.legend.position = side;
          chart.update("none");
        }
      };
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
   * Draws chart into its figure; Chart.js sizes it to its box and draws it
   * again when the panel is resized.
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
    const instance = new ChartJS(canvas, config(plan, theme(), fig.isConnected ? fig.clientWidth : 480));
    instance.$aiqChart = chart; // for retheme
  }

  /**
   * Every chart into the theme's new colours when VS Code changes the
   * theme (body's class), those of figures the panel keeps out of view too.
   */
  function retheme() {
    const t = theme();
    for (const c of Object.values(ChartJS.instances)) {
      const chart = /** @type {any} */ (c);
      if (!chart.$aiqChart) continue;
      const next = config(V.chartPlan(chart.$aiqChart), t, chart.width);
      chart.options = next.options;
      chart.data.datasets[0] = { ...chart.data.datasets[0], ...next.data.datasets[0], data: chart.data.datasets[0].data };
      chart.update("none");
    }
  }

  /**
   * Frees the charts of figures the panel no longer shows (a cleared or
   * reloaded conversation, a default chart that a chart event replaced):
   * each holds a canvas of a few hundred kilobytes that Chart.js keeps in
   * its registry. Run after the panel has placed every block; a figure
   * shown again after this is drawn anew (see alive).
   */
  function sweep() {
    for (const c of Object.values(ChartJS.instances)) {
      const chart = /** @type {any} */ (c);
      if (chart.$aiqChart && !chart.canvas.isConnected) chart.destroy();
    }
  }

  /** Whether a figure from draw still has its chart (sweep has not freed it). @param {Element} fig */
  function alive(fig) {
    const canvas = fig.querySelector("canvas");
    return !!canvas && ChartJS.getChart(canvas) !== undefined;
  }

  new MutationObserver(retheme).observe(document.body, { attributes: true, attributeFilter: ["class"] });

  /** @type {any} */ (window).aiqCharts = { draw, sweep, alive };
})();
