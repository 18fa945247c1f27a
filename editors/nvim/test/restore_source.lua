-- Run after restore.lua on the same home: :AiqSource as the first command
-- starts a new conversation on the source, and leaves the last one alone.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqSource db")
  T.wait("the source's message", function()
    return T.note_matching("the session now uses db") ~= nil
  end)
  T.truthy(not T.has("How many orders are there?"), "the last conversation is shown")
  local conn = require("aiq.server").conn
  local result, err = conn:request_sync("chat/history", { sessionId = require("aiq.session").id() }, 120000)
  T.truthy(not err, "chat/history: " .. vim.inspect(err))
  T.eq(#result.turns, 0, "the turns of the session")
end)
