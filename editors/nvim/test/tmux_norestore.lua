-- tmux.lua's set-up with restore_last_session off: the first question
-- starts a new conversation, whatever the home's last one was.
require("aiq").setup({
  server = os.getenv("AIQ_TEST_SERVER"),
  home = os.getenv("AIQ_TEST_HOME"),
  source = os.getenv("AIQ_TEST_SOURCE"),
  restore_last_session = false,
})
vim.o.laststatus = 2
