-- A turn whose model hangs is cancelled with <C-c> in the panel, then with
-- :AiqCancel; each time the panel says so promptly and the running
-- indicator goes.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local function cancelled_count()
  local n = 0
  for _, line in ipairs(T.panel()) do
    if line == "_Cancelled._" then
      n = n + 1
    end
  end
  return n
end

local function ask_and_cancel(cancel, n)
  vim.cmd("AiqAsk question " .. n)
  T.wait_model(n)
  cancel()
  T.wait("the panel to say cancelled", function()
    return cancelled_count() == n
  end)
  T.wait_turn()
end

T.run(function()
  T.setup()
  ask_and_cancel(function()
    local chat_buf = vim.fn.bufnr("aiq://chat")
    for _, map in ipairs(vim.api.nvim_buf_get_keymap(chat_buf, "n")) do
      if map.lhs == "<C-C>" then
        return map.callback()
      end
    end
    error("the panel has no <C-c> mapping")
  end, 1)
  ask_and_cancel(function()
    vim.cmd("AiqCancel")
  end, 2)
  T.eq(#T.errors(), 0, "error messages")
end)
