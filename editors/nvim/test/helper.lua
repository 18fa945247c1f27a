-- Shared by the headless test scripts, which cmd/aiq-rpc/nvim_test.go runs
-- as: nvim --headless -u NONE -i NONE --noplugin --cmd "set rtp^=editors/nvim"
-- -c "runtime plugin/aiq.lua" -c "luafile editors/nvim/test/<name>.lua".
-- A script calls T.run(fn): on success Neovim quits with status 0; on a
-- failed check or an error it prints why, with the panel, on stderr and
-- quits with status 1.
local T = {}

T.env = setmetatable({}, {
  __index = function(_, name)
    local v = os.getenv(name)
    if v == nil or v == "" then
      error("the test needs the environment variable " .. name, 0)
    end
    return v
  end,
})

local function log(msg)
  io.stderr:write(msg .. "\n")
end
T.log = log

-- Every notification is recorded, and printed for the Go test's output.
T.notes = {}
vim.notify = function(msg, level)
  level = level or vim.log.levels.INFO
  table.insert(T.notes, { msg = msg, level = level })
  log(string.format("[notify %d] %s", level, msg))
end

-- messages is the text of :messages, where a message too long for one
-- line is kept whole.
function T.messages()
  return vim.fn.execute("messages")
end

-- long_notes are the notifications that would stop Neovim at a "Press
-- ENTER" prompt: more than one line, or wider than the message area.
local function long_notes()
  local width = math.max(tonumber(vim.v.echospace) or 0, 40)
  local out = {}
  for _, n in ipairs(T.notes) do
    if n.msg:find("\n") or vim.api.nvim_strwidth(n.msg) > width then
      out[#out + 1] = n.msg
    end
  end
  return out
end

function T.errors()
  local out = {}
  for _, n in ipairs(T.notes) do
    if n.level == vim.log.levels.ERROR then
      out[#out + 1] = n.msg
    end
  end
  return out
end

-- note_matching returns the first notification containing text.
function T.note_matching(text)
  for _, n in ipairs(T.notes) do
    if n.msg:find(text, 1, true) then
      return n
    end
  end
end

-- confirm replaces vim.fn.confirm with answers given in turn (the last one
-- repeats), and records what was asked.
T.asked = {}
function T.answer_confirm(...)
  local answers = { ... }
  vim.fn.confirm = function(msg, choices, default)
    table.insert(T.asked, { msg = msg, choices = choices, default = default })
    local a = table.remove(answers, 1)
    if #answers == 0 then
      answers = { a }
    end
    log(string.format("[confirm] %q -> %d", msg, a))
    return a
  end
end

function T.panel()
  return require("aiq.chat").lines()
end

function T.panel_text()
  return table.concat(T.panel(), "\n")
end

function T.fail(msg)
  error(msg, 2)
end

function T.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format("%s:\n  got  %s\n  want %s", what, vim.inspect(got), vim.inspect(want)), 2)
  end
end

function T.truthy(v, what)
  if not v then
    error(what, 2)
  end
end

-- has says whether the panel holds text (plain, across lines).
function T.has(text)
  return T.panel_text():find(text, 1, true) ~= nil
end

function T.expect(text, what)
  if not T.has(text) then
    error(string.format("%s: the panel lacks %q", what or "panel", text), 2)
  end
end

-- wait waits for pred, polling every 20 ms. Its deadline, two minutes
-- unless timeout (ms) says otherwise, only stops a hung test: on a loaded
-- machine a turn that takes 50 ms on a quiet one can take seconds.
function T.wait(what, pred, timeout)
  if not vim.wait(timeout or 120000, pred, 20) then
    error("timed out waiting for " .. what, 2)
  end
end

-- wait_model waits until the model holds its n-th request open: the Go
-- test's holdStep writes the file held-<n> then.
function T.wait_model(n)
  local path = T.env.AIQ_TEST_TMP .. "/held-" .. n
  T.wait("the model to hold request " .. n, function()
    return vim.loop.fs_stat(path) ~= nil
  end)
end

function T.wait_turn(timeout)
  T.wait("the turn to end", function()
    return not require("aiq.turn").running()
  end, timeout)
  if require("aiq.chat").is_running() then
    error("the running indicator is still shown after the turn ended", 2)
  end
end

-- STATUS_TABLE is the panel's table of the orders per status that the
-- Go tests put in SQLite.
T.STATUS_TABLE = {
  "| status    | n   |",
  "|-----------|----:|",
  "| delivered |   2 |",
  "| pending   |   1 |",
  "| shipped   |   1 |",
  "(3 rows)",
}

-- COUNT_TURN is the panel of the turn the Go tests script as a count of
-- the orders (sqlCall, then "There are 4 orders.").
T.COUNT_TURN = {
  "## You",
  "How many orders are there?",
  "",
  "## aiq",
  "```sql",
  "SELECT count(*) AS n FROM orders",
  "```",
  "| n   |",
  "|----:|",
  "|   4 |",
  "(1 row)",
  "",
  "There are 4 orders.",
}

-- expect_history empties the panel, runs :AiqHistory and checks that the
-- panel then reads as live did.
function T.expect_history(live)
  require("aiq.chat").clear()
  vim.cmd("AiqHistory")
  T.wait("the history in the panel", function()
    return #T.panel() > 1
  end)
  T.eq(T.panel(), live, "the history")
end

-- setup configures the plugin for the test's server and home.
function T.setup(extra)
  local opts = {
    server = T.env.AIQ_TEST_SERVER,
    home = os.getenv("AIQ_TEST_HOME"),
    source = os.getenv("AIQ_TEST_SOURCE"),
  }
  require("aiq").setup(vim.tbl_extend("force", opts, extra or {}))
end

-- sql_buffer opens a buffer of filetype sql holding lines, in the only
-- window, as a user's file.
function T.sql_buffer(lines, name)
  vim.cmd("enew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  if name then
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].filetype = "sql"
  return buf
end

-- screenshot writes the panel's lines where the README's screenshots are
-- kept, when AIQ_SCREENSHOT_DIR is set.
function T.screenshot(name)
  local dir = os.getenv("AIQ_SCREENSHOT_DIR")
  if dir and dir ~= "" then
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile(T.panel(), dir .. "/" .. name)
  end
end

function T.run(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok and #long_notes() > 0 then
    ok, err = false, "notifications longer than one line: " .. vim.inspect(long_notes())
  end
  if ok then
    log("ok")
    vim.cmd("qall!")
    return
  end
  log("FAIL: " .. tostring(err))
  log("--- the panel:\n" .. T.panel_text() .. "\n---")
  vim.cmd("cquit 1")
end

return T
