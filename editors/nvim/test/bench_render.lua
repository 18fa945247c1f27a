-- Benchmark: rendering a 500-row x 6-column statement as the turn does
-- (render.statement, then chat.add of its SQL block and of the table) into
-- the open panel, with no server. $AIQ_BENCH_MAX_ROWS is the option
-- max_rows; $AIQ_BENCH_PANEL_LINES fills the panel with that many lines
-- first, as a long conversation would, to see whether writing to the panel
-- gets slower as it grows.
local dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local T = dofile(dir .. "/helper.lua")
local B = dofile(dir .. "/bench.lua")

local chat = require("aiq.chat")
local render = require("aiq.render")

local max_rows = tonumber(os.getenv("AIQ_BENCH_MAX_ROWS") or "") or 50
local panel_lines = tonumber(os.getenv("AIQ_BENCH_PANEL_LINES") or "") or 0

local statement = {
  sql = "SELECT id, name, city, amount, qty, note FROM items ORDER BY id LIMIT 500",
  status = "success",
  rowCount = 500,
  columns = B.columns,
  rows = B.table_rows(500),
}

-- earlier is what the panel holds before each render.
local earlier = {}
for i = 1, panel_lines do
  earlier[i] = string.format("line %d of an earlier answer, some words to make it a sentence.", i)
end

T.run(function()
  B.setup_screen()
  T.sql_buffer({ "-- the user's file" })
  chat.open()
  local samples = { render = {}, add = {}, redraw = {}, total = {} }
  local lines
  for i = 1, B.iterations() + 1 do
    chat.set_lines(earlier)
    vim.cmd("redraw")
    local t_render
    t_render, lines = B.time(function()
      -- As a turn renders it: cut to the panel's width (100 of 200 columns).
      local opts = require("aiq.turn").render_opts()
      opts.max_rows = max_rows
      return render.statement(statement, opts)
    end)
    local t_add = B.time(function()
      chat.add(render.fence(statement.sql, "sql"), { gap = true })
      chat.add(lines)
    end)
    local t_redraw = B.time(function()
      vim.cmd("redraw")
    end)
    -- the first round warms up (JIT, syntax files): not counted
    if i > 1 then
      table.insert(samples.render, t_render)
      table.insert(samples.add, t_add)
      table.insert(samples.redraw, t_redraw)
      table.insert(samples.total, t_render + t_add)
    end
  end
  T.eq(T.panel()[#T.panel()], "(500 rows)", "the panel's last line")
  T.eq(#T.panel(), panel_lines + (panel_lines > 0 and 1 or 0) + 3 + #lines, "the panel's lines")

  local function us(key)
    return B.median(samples[key]) / 1e3
  end
  B.write_results({
    ["us/render"] = us("total"),
    ["render-us"] = us("render"),
    ["add-us"] = us("add"),
    ["redraw-us"] = us("redraw"),
    ["table-lines"] = #lines,
  }, {
    string.format(
      "max_rows=%d, panel of %d lines before: median render.statement %.0f µs + chat.add %.0f µs = %.0f µs; :redraw %.0f µs (%d samples, %d table lines)",
      max_rows, panel_lines, us("render"), us("add"), us("total"), us("redraw"), #samples.total, #lines
    ),
  })
end)
