-- Benchmark: chat.stream of a long answer, $AIQ_BENCH_PIECES pieces (2,000
-- by default) of ~20 characters
-- with some newlines, into the open panel under its running indicator, as
-- a turn streams it. Timed twice: the pieces back to back (the plugin's
-- own cost), and with a :redraw after each piece (what the user sees when
-- pieces come slower than the screen redraws).
local dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h")
local T = dofile(dir .. "/helper.lua")
local B = dofile(dir .. "/bench.lua")

local chat = require("aiq.chat")

local PIECES = tonumber(os.getenv("AIQ_BENCH_PIECES") or "") or 2000
local words = { "the ", "orders ", "of ", "each ", "status ", "were ", "counted ", "and ", "grouped ", "by ", "month, " }

-- pieces makes the streamed answer: ~20 characters a piece, a line break
-- every 9th piece and a paragraph every 50th.
local function pieces()
  local out = {}
  for i = 1, PIECES do
    local p = {}
    local len = 0
    local w = i
    while len < 18 do
      local word = words[w % #words + 1]
      p[#p + 1] = word
      len = len + #word
      w = w + 3
    end
    local text = table.concat(p)
    if i % 50 == 0 then
      text = text .. "\n\n"
    elseif i % 9 == 0 then
      text = text .. "\n"
    end
    out[i] = text
  end
  return out
end

local function start_turn()
  chat.set_lines({})
  chat.add({ "## You", "a question with a long answer" }, { gap = true })
  chat.add({ "", "## aiq" })
  chat.set_running("running…")
end

-- stream streams every piece, with a redraw after each when asked, and
-- returns the total and the slowest piece in ns.
local function stream(list, redraw)
  start_turn()
  local slowest = 0
  local total = B.time(function()
    for _, piece in ipairs(list) do
      local t = B.time(function()
        chat.stream(piece)
        if redraw then
          vim.cmd("redraw")
        end
      end)
      slowest = math.max(slowest, t)
    end
  end)
  chat.set_running(nil)
  return total, slowest
end

T.run(function()
  B.setup_screen()
  T.sql_buffer({ "-- the user's file" })
  chat.open()
  local list = pieces()
  local want = table.concat(list)
  local plain, drawn, slow_plain, slow_drawn = {}, {}, {}, {}
  for i = 1, B.iterations() do
    plain[i], slow_plain[i] = stream(list, false)
    T.eq(table.concat(vim.list_slice(T.panel(), 5), "\n"), want, "the streamed answer in the panel")
    drawn[i], slow_drawn[i] = stream(list, true)
  end
  local chars = #want
  local ms_plain, ms_drawn = B.ms(B.median(plain)), B.ms(B.median(drawn))
  B.write_results({
    ["ms/stream"] = ms_plain,
    ["us/piece"] = ms_plain * 1e3 / PIECES,
    ["ms/stream-redrawn"] = ms_drawn,
    ["us/piece-redrawn"] = ms_drawn * 1e3 / PIECES,
    ["slowest-piece-us"] = B.median(slow_drawn) / 1e3,
  }, {
    string.format("%d pieces, %d bytes, %d panel lines, %d runs", PIECES, chars, #T.panel(), #plain),
    string.format("back to back: %.1f ms (%.1f µs/piece, slowest piece %.0f µs)", ms_plain, ms_plain * 1e3 / PIECES, B.median(slow_plain) / 1e3),
    string.format("with :redraw after each piece: %.1f ms (%.1f µs/piece, slowest piece %.0f µs)", ms_drawn, ms_drawn * 1e3 / PIECES, B.median(slow_drawn) / 1e3),
  })
end)
