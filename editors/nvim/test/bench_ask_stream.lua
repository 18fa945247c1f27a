-- Benchmark: :AiqAsk through the real server of a question the scripted
-- model answers in many chunks, from the command to the whole answer in
-- the panel: how many chat/progress text notifications reached the
-- plugin, the time spent handling them, and the longest time the main
-- loop could not react to a key. The panel is cleared between asks,
-- untimed; the first ask, which starts the server, is not counted.
local dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local T = dofile(dir .. "/helper.lua")
local B = dofile(dir .. "/bench.lua")

local answer = T.env.AIQ_BENCH_ANSWER

local chat = require("aiq.chat")
local turn = require("aiq.turn")

-- The handler of chat/progress, wrapped to count and time text pieces.
local pieces, handling = 0, 0
local progress = turn.progress
turn.progress = function(p)
  if p.kind == "text" then
    pieces = pieces + 1
  end
  local t = vim.loop.hrtime()
  progress(p)
  handling = handling + vim.loop.hrtime() - t
end

local function ask(meter)
  chat.set_lines({})
  pieces, handling = 0, 0
  meter.reset()
  local t0 = vim.loop.hrtime()
  vim.cmd("AiqAsk tell me about the rows")
  if not vim.wait(30000, function()
    return not turn.running()
  end, 1) then
    T.fail("timed out waiting for the answer")
  end
  local total = vim.loop.hrtime() - t0
  local stall = meter.longest_ns()
  local panel = T.panel()
  T.eq(panel[#panel], answer, "the answer's last line")
  local redraw = B.time(function()
    vim.cmd("redraw")
  end)
  return { total = total, stall = stall, pieces = pieces, handling = handling, redraw = redraw }
end

T.run(function()
  B.setup_screen()
  T.setup()
  T.sql_buffer({ "-- the user's file" })
  local meter = B.stall_meter()
  ask(meter)
  local samples = {}
  for i = 1, B.iterations() do
    samples[i] = ask(meter)
  end
  meter.stop()
  T.eq(#T.errors(), 0, "error messages")

  local function med(key)
    return B.median_of(samples, key)
  end
  local stalls = vim.tbl_map(function(s)
    return s.stall
  end, samples)
  local metrics = {
    ["ms/ask"] = B.ms(med("total")),
    ["notifications"] = med("pieces"),
    ["handling-ms"] = B.ms(med("handling")),
    ["us/notification"] = med("pieces") > 0 and med("handling") / med("pieces") / 1e3 or 0,
    ["stall-ms"] = B.ms(med("stall")),
    ["max-stall-ms"] = B.ms(B.max(stalls)),
    ["redraw-ms"] = B.ms(med("redraw")),
  }
  B.write_results(metrics, {
    string.format("%d asks, answer of %d bytes", #samples, #answer),
    string.format(
      "median ask %.1f ms: %d text notifications handled in %.2f ms (%.1f µs each); longest main-loop stall %.1f ms (max %.1f); :redraw %.1f ms",
      metrics["ms/ask"], metrics["notifications"], metrics["handling-ms"], metrics["us/notification"],
      metrics["stall-ms"], metrics["max-stall-ms"], metrics["redraw-ms"]
    ),
  })
end)
