-- Benchmark: :AiqAsk of one SELECT of 500 rows through the real server
-- (no model: the statement runs directly), from the command to the panel
-- showing the table's end. The first ask, which starts the server, is
-- timed on its own; the panel and the session are cleared between asks,
-- untimed, so that every ask starts from the same state.
local dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local T = dofile(dir .. "/helper.lua")
local B = dofile(dir .. "/bench.lua")

local SQL = "SELECT id, name, city, amount, qty, note FROM items ORDER BY id LIMIT 500"
local max_rows = tonumber(os.getenv("AIQ_BENCH_MAX_ROWS") or "") or 50

local chat = require("aiq.chat")
local render = require("aiq.render")
local turn = require("aiq.turn")

-- where the time of one ask goes, in ns: decoding the server's JSON,
-- rendering the table, writing the panel's buffer
local spent = {}
B.wrap(vim.json, "decode", spent, "decode")
B.wrap(render, "statement", spent, "render")
B.wrap(chat, "add", spent, "add")

local function last_lines(n)
  local buf = chat.buffer()
  local count = vim.api.nvim_buf_line_count(buf)
  return vim.api.nvim_buf_get_lines(buf, math.max(0, count - n), count, false)
end

-- check fails unless the panel shows the table's end. With no model the
-- server's summary of the result follows it, as the answer.
local function check()
  local tail = last_lines(4)
  local at
  for i, line in ipairs(tail) do
    if line == "(500 rows)" then
      at = i
    end
  end
  T.truthy(at and at > 1, "the panel's end lacks the line (500 rows): " .. vim.inspect(tail))
  if max_rows < 500 then
    T.eq(tail[at - 1], string.format("… %d more rows", 500 - max_rows), "the line before (500 rows)")
  else
    T.truthy(tail[at - 1]:find("^| +500 |"), "the line before (500 rows) is not row 500: " .. tail[at - 1])
  end
end

-- ask asks once and returns its timings in ns.
local function ask(meter)
  for k in pairs(spent) do
    spent[k] = 0
  end
  meter.reset()
  local t0 = vim.loop.hrtime()
  vim.cmd("AiqAsk " .. SQL)
  if not vim.wait(15000, function()
    return not turn.running()
  end, 1) then
    T.fail("timed out waiting for the ask to end")
  end
  local total = vim.loop.hrtime() - t0
  local stall = meter.longest_ns()
  check()
  local redraw = B.time(function()
    vim.cmd("redraw")
  end)
  return { total = total, stall = stall, redraw = redraw, decode = spent.decode, render = spent.render, add = spent.add }
end

local function clear()
  local before = #T.notes
  require("aiq").clear()
  T.wait("the conversation to be cleared", function()
    for i = before + 1, #T.notes do
      if T.notes[i].msg:find("the conversation is cleared", 1, true) then
        return true
      end
    end
  end)
end

T.run(function()
  B.setup_screen()
  T.setup({ max_rows = max_rows })
  T.answer_confirm(1)
  T.sql_buffer({ "-- the user's file" })
  local meter = B.stall_meter()

  local first = ask(meter)
  local samples = {}
  for i = 1, B.iterations() do
    clear()
    samples[i] = ask(meter)
  end
  meter.stop()
  T.eq(#T.errors(), 0, "error messages")

  local function med(key)
    return B.ms(B.median_of(samples, key))
  end
  local stalls = {}
  for i, s in ipairs(samples) do
    stalls[i] = s.stall
  end
  local metrics = {
    ["ms/ask"] = med("total"),
    ["first-ask-ms"] = B.ms(first.total),
    ["stall-ms"] = med("stall"),
    ["max-stall-ms"] = B.ms(B.max(stalls)),
    ["redraw-ms"] = med("redraw"),
    ["decode-ms"] = med("decode"),
    ["render-ms"] = med("render"),
    ["add-ms"] = med("add"),
  }
  B.write_results(metrics, {
    string.format("max_rows=%d, %d asks after the first; panel lines after an ask: %d", max_rows, #samples, #T.panel()),
    string.format(
      "first ask incl. server start: %.1f ms (stall %.1f ms, decode %.1f, render %.1f, add %.1f)",
      B.ms(first.total), B.ms(first.stall), B.ms(first.decode or 0), B.ms(first.render or 0), B.ms(first.add or 0)
    ),
    string.format(
      "median ask %.1f ms: longest main-loop stall %.1f ms (max %.1f) = JSON decode %.1f + render.statement %.1f + chat.add %.1f + rest; then :redraw %.1f ms",
      metrics["ms/ask"], metrics["stall-ms"], metrics["max-stall-ms"], metrics["decode-ms"], metrics["render-ms"], metrics["add-ms"], metrics["redraw-ms"]
    ),
  })
end)
