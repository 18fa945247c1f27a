-- A server that cannot start is reported in one error message with the
-- path tried (or where a bare name was looked for), what it printed and
-- how to install it from the clone; the turn ends; and a good server given
-- later starts on the next command, also when it is only in ~/go/bin.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local T = dofile(here .. "/helper.lua")

-- The plugin is editors/nvim of this clone.
local clone = vim.fn.fnamemodify(here, ":h:h:h")
local hint = "cd " .. clone .. " && go install ./cmd/aiq-rpc"

local function ask_expecting_error(what)
  local before = #T.errors()
  vim.cmd("AiqAsk hello")
  -- The message comes before the turn ends, in the same tick.
  T.wait_turn()
  local errors = T.errors()
  T.eq(#errors, before + 1, "error messages for " .. what)
  -- One line on screen; the whole message in :messages.
  T.truthy(errors[#errors]:find("^aiq: could not start aiq%-rpc: .*%(:messages%)$"), what .. ": the message shown: " .. errors[#errors])
  local msg = T.messages()
  T.truthy(msg:find(hint, 1, true), what .. ": :messages lacks the install hint: " .. msg)
  T.truthy(not msg:find("traceback", 1, true), what .. ": the message is a stack: " .. msg)
  T.expect("aiq-rpc is not running", what)
  return msg
end

T.run(function()
  local missing = T.env.AIQ_TEST_TMP .. "/no/such/aiq-rpc"
  T.setup({ server = missing })
  local msg = ask_expecting_error("a missing server")
  T.truthy(msg:find(missing, 1, true), "the message lacks the path tried: " .. msg)

  local broken = T.env.AIQ_TEST_BROKEN
  T.setup({ server = broken })
  msg = ask_expecting_error("a server that exits at once")
  T.truthy(msg:find(broken, 1, true), "the message lacks the path tried: " .. msg)
  T.truthy(msg:find("exited with status 3", 1, true), "the message lacks the exit status: " .. msg)
  T.truthy(msg:find("cannot read the configuration (broken on purpose)", 1, true), "the message lacks what the server printed: " .. msg)

  -- A bare name not on $PATH: go install's folders are looked in too.
  local tmp = T.env.AIQ_TEST_TMP
  vim.env.PATH = "/usr/bin:/bin"
  vim.env.GOBIN = tmp .. "/gobin"
  vim.env.GOPATH = nil
  vim.env.HOME = tmp .. "/home"
  T.setup({ server = "aiq-rpc" })
  msg = ask_expecting_error("a server not installed")
  local where = string.format("'aiq-rpc' was not found on $PATH, in $GOBIN (%s/gobin) or in ~/go/bin (%s/home/go/bin).", tmp, tmp)
  T.truthy(msg:find(where, 1, true), "the message does not say where it looked: " .. msg)
  T.truthy(not msg:find("@latest", 1, true), "the message names the unpublished module: " .. msg)

  vim.fn.mkdir(tmp .. "/home/go/bin", "p")
  vim.loop.fs_symlink(T.env.AIQ_TEST_SERVER, tmp .. "/home/go/bin/aiq-rpc")
  require("aiq.chat").clear()
  vim.cmd("AiqAsk hello")
  T.wait_turn()
  T.expect("Hello there.", "the answer once the server is found in ~/go/bin")
end)
