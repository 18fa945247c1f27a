-- aiq.nvim: setup() and the commands. One aiq-rpc per Neovim
-- (aiq.server, aiq.rpc) holds one session (aiq.session); a question is a
-- turn (aiq.turn) shown in the chat panel (aiq.chat).
local config = require("aiq.config")
local selection = require("aiq.selection")
local server = require("aiq.server")
local session = require("aiq.session")
local turn = require("aiq.turn")
local result = require("aiq.result")

local M = {}

M.ask = turn.ask
M.cancel = turn.cancel
M.history = session.history
M.clear = session.clear
M.save = session.save
M.load = session.load
M.sessions = session.sessions
M.source = session.source
M.complete_sessions = session.complete_sessions
M.complete_sources = session.complete_sources
M.model = session.model
M.complete_models = session.complete_models
M.selection = selection.get
M.run = result.run
M.rerun = result.rerun
M.export = result.export
M.open_result = result.open_at_cursor

function M.allowances(args)
  require("aiq.allowances").run(args)
end

function M.complete_allowances(lead, cmdline)
  return require("aiq.allowances").complete(lead, cmdline)
end

function M.setup(opts)
  local o = config.set(opts)
  local key = o.keymaps.ask
  if type(key) == "string" and key ~= "" then
    vim.keymap.set("n", key, "<cmd>AiqAsk<CR>", { desc = "aiq: ask a question" })
    vim.keymap.set("x", key, ":AiqAsk<CR>", { desc = "aiq: ask about the selection" })
  end
end

-- The server saves its sessions on shutdown; give it the chance.
vim.api.nvim_create_autocmd("VimLeavePre", {
  group = vim.api.nvim_create_augroup("aiq", { clear = true }),
  callback = function()
    server.conn:shutdown(2000)
  end,
})

return M
