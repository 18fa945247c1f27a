-- Unit test of lua/aiq/message.lua: messages stay on one line, so that
-- Neovim never stops at a "Press ENTER" prompt, and an error reads as the
-- server's sentence, without its detail. No server.
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

  T.eq(message.error_text({ message = "There is no session file at /x.json; check the path.", data = { detail = "session/load: ..." } }),
    "There is no session file at /x.json; check the path.", "an error's sentence, without its detail")
end)
