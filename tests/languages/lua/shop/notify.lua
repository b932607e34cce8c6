local M = {}

---Shows the receipt once the editor is idle: a function a call wraps is a function all the same
M.show_receipt = vim.schedule_wrap(function(receipt, done)
  print(receipt.total)
  done()
end)

return M
