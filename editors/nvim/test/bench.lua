-- Shared by the benchmark scripts (bench_*.lua), which
-- cmd/aiq-rpc/nvim_bench_test.go runs like the tests. They measure, they
-- do not assert timings: each script writes its numbers as JSON to
-- $AIQ_BENCH_OUT for the Go benchmark to report, and fails only when the
-- panel does not show what it should.
--
-- Headless Neovim still draws into its grid on :redraw, so the cost of a
-- redraw (markdown syntax included: -u NONE leaves syntax off, a user's
-- setup has it on) is measured explicitly, on a screen of a real size.
local B = {}

local uv = vim.uv or vim.loop

function B.setup_screen()
  vim.cmd("syntax on")
  vim.o.columns, vim.o.lines = 200, 50
end

-- iterations is how many timed samples the Go benchmark asked for.
function B.iterations()
  return tonumber(os.getenv("AIQ_BENCH_N") or "") or 5
end

function B.ms(ns)
  return ns / 1e6
end

-- time runs fn and returns its duration in ns and its result.
function B.time(fn)
  local t = uv.hrtime()
  local r = fn()
  return uv.hrtime() - t, r
end

function B.median(xs)
  if #xs == 0 then
    return 0
  end
  local s = vim.list_slice(xs)
  table.sort(s)
  local mid = math.floor((#s + 1) / 2)
  if #s % 2 == 1 then
    return s[mid]
  end
  return (s[mid] + s[mid + 1]) / 2
end

-- median_of is the median of field key over a list of samples.
function B.median_of(samples, key)
  local xs = {}
  for i, s in ipairs(samples) do
    xs[i] = s[key]
  end
  return B.median(xs)
end

function B.max(xs)
  local m = 0
  for _, x in ipairs(xs) do
    m = math.max(m, x)
  end
  return m
end

-- stall_meter ticks a 1 ms timer on the main loop: the longest gap between
-- two ticks is the longest time the editor could not react to a key.
function B.stall_meter()
  local timer = uv.new_timer()
  local last, longest = uv.hrtime(), 0
  timer:start(1, 1, function()
    local now = uv.hrtime()
    longest = math.max(longest, now - last)
    last = now
  end)
  local m = {}
  function m.reset()
    last, longest = uv.hrtime(), 0
  end
  -- longest_ns also counts the time since the last tick, so that a stall
  -- still going on is not missed.
  function m.longest_ns()
    return math.max(longest, uv.hrtime() - last)
  end
  function m.stop()
    timer:stop()
    timer:close()
  end
  return m
end

-- wrap replaces mod[name] with a function that adds its duration to
-- acc[key] (ns), to see where an ask's time goes without touching the
-- plugin's files.
function B.wrap(mod, name, acc, key)
  local orig = mod[name]
  mod[name] = function(...)
    local t = uv.hrtime()
    local r = { orig(...) }
    acc[key] = (acc[key] or 0) + (uv.hrtime() - t)
    return unpack(r)
  end
end

-- write_results writes metrics (unit -> value) and a report (lines) for
-- the Go benchmark.
function B.write_results(metrics, report)
  local f = assert(io.open(os.getenv("AIQ_BENCH_OUT"), "w"))
  f:write(vim.json.encode({ metrics = metrics, report = report or {} }))
  f:close()
end

-- table_rows makes n rows of the benchmark table as the server sends them
-- (JSON decoded, so NULL is vim.NIL): numbers, NULLs, wide and accented
-- text, an emoji, and now and then a newline.
function B.table_rows(n)
  local rows = vim.json.decode(vim.json.encode(B.rows_json(n)))
  return rows
end

function B.rows_json(n)
  local rows = {}
  for i = 1, n do
    rows[i] = {
      i,
      string.format("Zoë Ångström 日本語 %d", i),
      i % 7 == 0 and vim.NIL or ({ "Zürich", "東京", "São Paulo", "Reykjavík" })[i % 4 + 1],
      i % 11 == 0 and vim.NIL or i * 3.17,
      i % 5,
      (i % 50 == 0 and "two\nlines " or "") .. string.format("note %d — 🚀 宽字符 lorem ipsum dolor sit amet, consectetur", i),
    }
  end
  return rows
end

B.columns = { "id", "name", "city", "amount", "qty", "note" }

return B
