-- The options of setup(), with their defaults.
local M = {}

M.defaults = {
  -- The aiq-rpc command: a name on $PATH or a path.
  server = "aiq-rpc",
  -- The AIQ home folder; nil lets aiq-rpc pick ($AIQ_HOME, else ~/.aiq).
  home = nil,
  -- The data source of new sessions; nil is the server's default.
  source = nil,
  -- Extra arguments for aiq-rpc, e.g. { "--history-limit", "40" }.
  args = {},
  -- Where aiq-rpc logs; its start-up errors are read back from here.
  log_file = nil, -- default: stdpath("cache") .. "/aiq-rpc.log"
  -- Rows of a result shown in the panel before "… N more rows".
  max_rows = 50,
  -- On the first command, reopen the last conversation on the source
  -- (session/list's latest) and show it in the panel; false starts anew.
  restore_last_session = true,
  panel = {
    -- The command that opens the panel's window.
    split = "botright vsplit",
    -- The width of a vertical panel: columns (e.g. 80), or a fraction of
    -- the editor's (0.5 is half).
    width = 0.5,
  },
  keymaps = {
    -- In the panel: cancel the running turn, close the panel.
    cancel = "<C-c>",
    close = "q",
    -- In the panel: open the result under the cursor (or the last) whole,
    -- in a tab of its own.
    result = "gl",
    -- Global mapping (normal and visual mode) for :AiqAsk; false for none.
    ask = false,
  },
}

M.options = vim.deepcopy(M.defaults)

-- set merges the user's options over the defaults, and says which option
-- is wrong rather than failing later in a stack.
function M.set(user)
  if user ~= nil and type(user) ~= "table" then
    error("aiq: setup() takes a table of options, got " .. type(user), 0)
  end
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user or {})
  if type(merged.server) ~= "string" or merged.server == "" then
    error("aiq: the option 'server' must be the aiq-rpc command (a string)", 0)
  end
  if type(merged.args) ~= "table" then
    error("aiq: the option 'args' must be a list of strings", 0)
  end
  if type(merged.max_rows) ~= "number" or merged.max_rows < 1 then
    error("aiq: the option 'max_rows' must be a positive number", 0)
  end
  if type(merged.restore_last_session) ~= "boolean" then
    error("aiq: the option 'restore_last_session' must be true or false", 0)
  end
  local w = merged.panel.width
  if w ~= nil and (type(w) ~= "number" or w <= 0) then
    error("aiq: the option 'panel.width' must be a number of columns or a fraction of the editor's width (0.5 is half)", 0)
  end
  M.options = merged
  return merged
end

-- panel_width is the width a vertical panel opens with: panel.width
-- columns, or that fraction of the editor's width.
function M.panel_width()
  local w = M.options.panel.width or M.defaults.panel.width
  if w < 1 then
    w = vim.o.columns * w
  end
  return math.max(math.floor(w), 20)
end

function M.log_file()
  return M.options.log_file or (vim.fn.stdpath("cache") .. "/aiq-rpc.log")
end

return M
