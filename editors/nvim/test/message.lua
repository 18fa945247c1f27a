-- Unit test of lua/aiq/message.lua: messages stay on one line, so that
-- Neovim never stops at a "Press ENTER" prompt, and errors read as one
-- sentence without the server's internal prefixes. No server.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")
local message = require("aiq.message")

T.run(function()
  vim.o.columns = 80
  message.show("aiq: short", vim.log.levels.INFO)
  T.eq(T.notes[#T.notes].msg, "aiq: short", "a short message is shown as it is")
  local long = "aiq: could not start aiq-rpc: " .. string.rep("x", 100) .. ".\nIt printed:\nthe reason"
  message.show(long, vim.log.levels.ERROR)
  local shown = T.notes[#T.notes].msg
  T.truthy(not shown:find("\n") and vim.api.nvim_strwidth(shown) <= 68, "a long message on one line: " .. shown)
  T.truthy(shown:find("^aiq: could not start aiq%-rpc: x+… %(:messages%)$"), "a long message shortened: " .. shown)
  T.truthy(T.messages():find(long, 1, true), "the long message whole in :messages: " .. T.messages())

  T.eq(message.error_text({
    message = "chat/turn: run turn: model request 1: the model endpoint refused the key (HTTP 401)",
  }), "The model endpoint refused the key (HTTP 401)", "a turn's error")
  T.eq(message.error_text({ message = "session/load: invalid session file: x.json is a folder" }),
    "Invalid session file: x.json is a folder", "a method's error")
  T.eq(message.error_text({ message = "aiq-rpc stopped" }), "aiq-rpc stopped", "an error with no prefix is left as it is")
end)
