// libzmq's C API (Debian's libzmq3-dev), for the HeraldZeroMQ target.
#ifndef HERALD_CZEROMQ_SHIM_H
#define HERALD_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
