# no local edit
true
