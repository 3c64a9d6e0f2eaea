// Debian's libhiredis-dev (hiredis 0.14 on bookworm): the synchronous client, driven from one thread per connection.
#include <hiredis/hiredis.h>
