-- The plugin's one aiq-rpc connection, and how what the server sends
-- reaches the rest of the plugin: progress to the running turn, messages
-- to vim.notify, confirmation requests to a dialog.
local config = require("aiq.config")
local message = require("aiq.message")
local rpc = require("aiq.rpc")

local M = {}

local levels = vim.log.levels

function M.notify(msg, level)
  message.show("aiq: " .. msg, level or levels.INFO)
end

-- report tells the user about a failed request, unless it failed because
-- the server stopped: the connection has said so already, once.
function M.report(err)
  if err and not err.stopped then
    M.notify(message.error_text(err), levels.ERROR)
  end
end

local show_message_levels = { levels.ERROR, levels.WARN, levels.INFO, levels.DEBUG }

local handlers = {}

function handlers.notification(method, params)
  if method == "chat/progress" then
    require("aiq.turn").progress(params)
  elseif method == "window/showMessage" then
    message.show(params.message, show_message_levels[params.type] or levels.INFO)
  elseif method == "config/changed" and type(params) == "table" then
    -- config.yaml or sources.yaml changed: what :checkhealth aiq reports
    -- follows, as initialize's result would say it now.
    local info = M.conn.info
    if type(info) == "table" then
      info.modelConfigured, info.sources = params.modelConfigured, params.sources
    end
  end
end

function handlers.server_request(method, params)
  if method == "chat/confirm" then
    return require("aiq.confirm").ask(params or {})
  end
  return nil, vim.lsp.rpc.rpc_response_error(-32601, "aiq.nvim does not handle " .. tostring(method))
end

function handlers.on_exit()
  require("aiq.session").forget()
end

M.conn = rpc.new(function()
  return vim.tbl_extend("force", config.options, { log_file = config.log_file() })
end, handlers)

return M
