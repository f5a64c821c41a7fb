/*
 * aclnnop/aclnn_scatter_update.h - aclnnInplaceScatterUpdate, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: in place on data: along axis, the rows of updates replace data's
 * from the position indices gives each batch row (a KV-cache write).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC3alpha003/apiref/aolapi/context/aclnnInplaceScatterUpdate.md
 */
#ifndef TNGC_TEST_ACLNN_SCATTER_UPDATE_H
#define TNGC_TEST_ACLNN_SCATTER_UPDATE_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnInplaceScatterUpdateGetWorkspaceSize(aclTensor *data, const aclTensor *indices, const aclTensor *updates, int64_t axis,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnInplaceScatterUpdate(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
