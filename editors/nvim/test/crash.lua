-- The server dies in the middle of a turn: one message says so, the turn
-- ends, and the next command starts a new server that reopens the session
-- from its file (the Go test checks that the model sees the first turn)
-- and answers.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local pid_file = T.env.AIQ_TEST_TMP .. "/server.pid"

local function server_pid()
  local lines = vim.fn.filereadable(pid_file) == 1 and vim.fn.readfile(pid_file) or {}
  return tonumber(lines[1] or "")
end

T.run(function()
  -- The wrapper writes its pid, then execs aiq-rpc: the pid is the
  -- server's on every Neovim version.
  T.setup({ server = T.env.AIQ_TEST_WRAPPER })
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  vim.cmd("AiqAsk a question the server dies on")
  T.wait_model(2)
  local pid = server_pid()
  T.truthy(pid, "the wrapper wrote no pid")
  vim.loop.kill(pid, 9)
  -- The message comes before the turn ends, in the same tick.
  T.wait_turn()
  T.eq(#T.errors(), 1, "error messages when the server dies")
  local msg = T.errors()[1]
  T.truthy(msg:find("aiq: aiq-rpc was killed by signal 9", 1, true), "the message: " .. msg)
  msg = T.messages()
  T.truthy(msg:find("the next command restarts it.", 1, true) and msg:find("Its log: ", 1, true), ":messages: " .. msg)
  T.expect("aiq-rpc is not running", "the panel after the server died")

  vim.cmd("AiqAsk And how many are pending?")
  T.wait_turn()
  T.expect("One is pending.", "the answer from the restarted server")
  T.truthy(server_pid() ~= pid, "a new server was started")
  T.eq(#T.errors(), 1, "error messages after the restart")
end)
