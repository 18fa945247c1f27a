-- window/showMessage becomes vim.notify at the message's level: a broken
-- config.yaml is a warning the server sends after initialize.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqHistory")
  T.wait("the server's warning", function()
    return T.note_matching("The model configuration could not be read") ~= nil
  end)
  T.eq(T.note_matching("The model configuration could not be read").level, vim.log.levels.WARN, "the warning's level")
  T.wait("the history", function()
    return T.has("No questions yet in this session.")
  end)
  T.eq(#T.errors(), 0, "error messages")
end)
