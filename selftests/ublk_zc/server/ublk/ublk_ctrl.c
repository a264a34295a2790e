// SPDX-License-Identifier: GPL-2.0
/* ublk control commands: uring_cmd on /dev/ublk-control, one at a time. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ublk.h"

int ublk_ctrl_open(struct ublk_dev *d)
{
	int ret;

	d->ctrl_fd = open(UBLK_CTRL_DEV, O_RDWR | O_CLOEXEC);
	if (d->ctrl_fd < 0)
		return -errno;
	ret = io_uring_queue_init(4, &d->ctrl_ring, IORING_SETUP_SQE128);
	if (ret < 0) {
		close(d->ctrl_fd);
		d->ctrl_fd = -1;
	}
	return ret;
}

void ublk_ctrl_close(struct ublk_dev *d)
{
	if (d->ctrl_fd < 0)
		return;
	io_uring_queue_exit(&d->ctrl_ring);
	close(d->ctrl_fd);
	d->ctrl_fd = -1;
}

/* Issue one control command and wait for its result. */
static int ublk_ctrl_cmd(struct ublk_dev *d, unsigned int op, uint64_t data0,
			 void *buf, unsigned int len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ctrl_ring);
	struct ublksrv_ctrl_cmd *cmd;
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = d->ctrl_fd;
	sqe->cmd_op = op;
	cmd = (struct ublksrv_ctrl_cmd *)sqe->cmd;
	cmd->dev_id = d->dev_id;
	cmd->queue_id = (__u16)-1;
	cmd->data[0] = data0;
	cmd->addr = (uintptr_t)buf;
	cmd->len = len;

	ret = io_uring_submit(&d->ctrl_ring);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&d->ctrl_ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&d->ctrl_ring, cqe);
	return ret;
}

int ublk_ctrl_get_features(struct ublk_dev *d, uint64_t *features)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_GET_FEATURES, 0, features,
			     sizeof(*features));
}

int ublk_ctrl_add(struct ublk_dev *d)
{
	int ret;

	d->info.dev_id = d->dev_id;
	ret = ublk_ctrl_cmd(d, UBLK_U_CMD_ADD_DEV, 0, &d->info,
			    sizeof(d->info));
	if (ret == 0)
		d->dev_id = d->info.dev_id;
	return ret;
}

int ublk_ctrl_set_params(struct ublk_dev *d, struct ublk_params *p)
{
	p->len = sizeof(*p);
	return ublk_ctrl_cmd(d, UBLK_U_CMD_SET_PARAMS, 0, p, sizeof(*p));
}

int ublk_ctrl_start(struct ublk_dev *d, int daemon_pid)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_START_DEV, daemon_pid, NULL, 0);
}

int ublk_ctrl_stop(struct ublk_dev *d)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_STOP_DEV, 0, NULL, 0);
}

int ublk_ctrl_del(struct ublk_dev *d)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_DEL_DEV, 0, NULL, 0);
}

/* DEL_DEV without waiting for the char device to be closed */
int ublk_ctrl_del_async(struct ublk_dev *d)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_DEL_DEV_ASYNC, 0, NULL, 0);
}

int ublk_ctrl_get_info(struct ublk_dev *d)
{
	return ublk_ctrl_cmd(d, UBLK_U_CMD_GET_DEV_INFO, 0, &d->info,
			     sizeof(d->info));
}

int ublk_ctrl_dev_cmd(struct ublk_dev *d, unsigned int op, uint64_t data0)
{
	return ublk_ctrl_cmd(d, op, data0, NULL, 0);
}

/* Features of the running kernel's ublk driver, without a device. */
int ublk_features(uint64_t *features)
{
	struct ublk_dev d = { .dev_id = -1 };
	int ret = ublk_ctrl_open(&d);

	if (ret < 0)
		return ret;
	ret = ublk_ctrl_get_features(&d, features);
	ublk_ctrl_close(&d);
	return ret;
}
